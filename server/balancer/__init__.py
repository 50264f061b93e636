"""Replicas of the service behind nginx, a gRPC (HTTP/2) load balancer: `nginx` writes
its configuration from a small template and runs it; `replicas` starts ``gallerist serve``
child processes and follows their health; `group` runs both for ``gallerist serve
--replicas N --balancer nginx`` and stops them together. docs/operations.md says how
to run them, on one machine or several.
"""
