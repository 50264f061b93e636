"""The load test of the service (`gallerist loadtest`, `python bench/loadtest.py`):
`driver` starts servers and locust and summarizes the run; `mix` the budget mix;
`corpus` the recorded positions; `servers` the server processes; `sampler` their memory
and CPU over time; `locust_csv` locust's statistics files; `report` the numbers of a run
and the memory verdict of a soak; `users` the locust users and `states.jsonl.gz` the
packaged corpus they ask hints for.

Locust itself imports `users` by its path (gevent-patched) in a child process; no other
module here imports locust, so the tests may import all of them but `users`.
"""
