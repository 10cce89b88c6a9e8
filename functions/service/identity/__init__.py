"""Who a person is: passkey sign-in (WebAuthn), short-lived signed sessions, the person record.

docs/architecture.md, "Identity". `sessions.py` is the seam other parts read (`person_of`,
`bearer`); `persons.py` the record and its rules (ban, delete me); `passkeys.py` the ceremonies.
"""
