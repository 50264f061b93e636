"""The load test of the service (`gallerist loadtest`, `python bench/loadtest.py`):
`driver` starts servers and locust and summarizes the run; `mix` the budget mix;
`corpus` the recorded positions; `servers` the server processes; `sampler` their memory
and CPU over time; `locust_csv` locust's statistics files; `report` the numbers of a run
and the memory verdict of a soak.

Locust itself runs `bench/locustfile.py` (gevent-patched) in a child process; nothing
here imports locust, so the tests may import all of it.
"""
