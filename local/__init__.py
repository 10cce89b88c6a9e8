"""The offline stack: one aiohttp process that plays API Gateway, Lambda and EventBridge
Scheduler around the real handlers, with DynamoDB and Scheduler storage from moto.

Run it with ``python -m local --host H --port P [--time-scale X]``.
"""
