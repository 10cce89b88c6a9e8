"""The ground every layer stands on: the error type, the clock, telemetry, tokens, and the AWS
clients (DynamoDB storage, WebSocket pushes, phase timers)."""
