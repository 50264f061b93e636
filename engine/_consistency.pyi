"""Type stubs for the cross-field rules of the state reader (engine/_consistency.pyx)."""
VISITOR_FIELDS: tuple[str, ...]
FORM_FIELDS: tuple[str, ...]
