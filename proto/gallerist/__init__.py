"""Gallerist AI: the rules engine (`gallerist.engine`), the bots (`gallerist.ai`), the hint
service and command line (`gallerist.server`) and the protobuf schema (`gallerist.v1`)."""
