"""The client of the service, for code that imports it from the server's package: it
lives in `ai.hint_client` (the remote bot uses it too, and `ai` sits below `server`)."""
from gallerist.ai.hint_client import HintClient, bearer_metadata, hint_request

__all__ = ["HintClient", "bearer_metadata", "hint_request"]
