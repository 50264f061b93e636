"""nginx in front of the replicas: its configuration, from a template, and the nginx
process (in the foreground, as a child, with its pid, logs and temporary files in a
folder of its own, so that it runs without root too).

The upstream uses ``least_conn``: nginx counts the calls in flight on each replica and
sends a new call to the one with fewest, so with one client per search slot a call rarely
finds every slot of its replica busy. A replica that cannot be reached is skipped and
taken out for ``fail_timeout``; a call already sent to a replica is never sent again
(gRPC calls are POSTs: nginx resends only what the replica never received).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from typing import Any

from gallerist.engine.errors import GalleristError

__all__ = ["DEBIAN_PACKAGE", "NginxError", "NginxProcess", "die_with_parent", "find_nginx",
           "nginx_config", "standalone_config", "wait_or_kill"]

#: The Debian package whose nginx has the HTTP/2 and gRPC modules.
DEBIAN_PACKAGE = "nginx"
#: Where nginx is looked for beyond PATH (Debian's is /usr/sbin/nginx).
SBIN_DIRS = "/usr/sbin:/usr/local/sbin"
#: Seconds a replica that failed a call is left out (``fail_timeout``).
FAIL_TIMEOUT_S = 5

UPSTREAM = """\
upstream gallerist {{
    zone gallerist 64k;          # the calls in flight, shared by nginx's workers
    least_conn;                  # a new call goes to the replica with fewest in flight
    keepalive 32;
    keepalive_requests 1000000;
{servers}
}}

server {{
    listen {listen} {tls}http2;
{certificates}    # a client's connection moves to a new connection (GOAWAY, calls in flight finish)
    # every 100 calls: after a reload, nginx's old worker keeps a busy connection, with
    # the old list of replicas, until it does
    keepalive_requests 100;
    keepalive_timeout 3600s;
    client_max_body_size 16m;

    location / {{
        grpc_pass grpc://gallerist;
        grpc_set_header X-Real-IP $remote_addr;   # the client, for the caps on games
        # only what a replica never received is tried on another one (a refused
        # connection, a connect timeout); a call that fails on a replica fails
        grpc_next_upstream error timeout;
        grpc_next_upstream_tries {tries};
        grpc_connect_timeout 2s;
        grpc_read_timeout 600s;
        grpc_send_timeout 600s;
    }}
}}
"""

HTTP_FRONT = """\

upstream gallerist_http {{
    zone gallerist_http 64k;
    least_conn;
    keepalive 32;
{servers}
}}

server {{
    listen {listen}{tls};   # HTTP/1.1; with TLS, HTTP/2 too by ALPN
{certificates}    keepalive_timeout 75s;
    client_header_timeout 30s;
    client_body_timeout 30s;
    client_max_body_size 4m;
    large_client_header_buffers 4 16k;
{host_check}
    location / {{
        proxy_pass http://gallerist_http;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host {forward_host};
        proxy_set_header X-Real-IP $remote_addr;
        proxy_buffering off;           # a stream's messages as they come
        proxy_request_buffering on;    # a slow client's body is nginx's to wait for
        proxy_next_upstream error timeout;
        proxy_next_upstream_tries {tries};
        proxy_connect_timeout 2s;
        proxy_read_timeout 600s;
    }}
}}
"""

#: nginx on localhost: a page of another site reaching it by DNS rebinding names itself
LOOPBACK_HOST_CHECK = """    if ($host !~* "^(localhost|127\\.0\\.0\\.1|\\[::1\\])$") {
        return 400;
    }
"""

MAIN = """\
# written by gallerist serve --balancer nginx; nginx runs it in the foreground
daemon off;
master_process on;
worker_processes 1;
pid {run_dir}/nginx.pid;
error_log stderr warn;

events {{
    worker_connections 1024;
}}

http {{
    access_log off;
    client_body_temp_path {run_dir}/client_body;
    proxy_temp_path {run_dir}/proxy;
    fastcgi_temp_path {run_dir}/fastcgi;
    uwsgi_temp_path {run_dir}/uwsgi;
    scgi_temp_path {run_dir}/scgi;

{http}}}
"""


class NginxError(GalleristError, RuntimeError):
    """nginx is missing, refused its configuration or stopped."""


def nginx_config(replicas: Sequence[str], listen: str, *, down: Sequence[str] = (),
                 tls_cert: str | None = None, tls_key: str | None = None,
                 http: tuple[str, Sequence[str]] | None = None) -> str:
    """The ``upstream`` and ``server`` blocks (the http context; Debian's nginx reads them
    from /etc/nginx/conf.d/) of a balancer on `listen` ("host:port") in front of
    `replicas` ("host:port" each); those in `down` get no calls. With `http` (nginx's
    HTTP address, the replicas' HTTP addresses in the same order), also a front for
    their HTTP ports (Connect, gRPC-Web, the /play page).

    >>> print(nginx_config(["10.0.0.2:50051"], "0.0.0.0:50051").splitlines()[5])
        server 10.0.0.2:50051 max_fails=1 fail_timeout=5s;
    """
    if not replicas:
        raise ValueError("give at least one replica address")
    servers = "\n".join(
        f"    server {address} down;" if address in down else
        f"    server {address} max_fails=1 fail_timeout={FAIL_TIMEOUT_S}s;"
        for address in replicas)
    certificates = "" if tls_cert is None else (
        f"    ssl_certificate {os.path.abspath(tls_cert)};\n"
        f"    ssl_certificate_key {os.path.abspath(tls_key or '')};\n")
    out = UPSTREAM.format(servers=servers, listen=listen, tries=len(replicas),
                          tls="ssl " if tls_cert else "", certificates=certificates)
    if http is not None:
        front, backs = http
        if len(backs) != len(replicas):
            raise ValueError("give one HTTP address per replica")
        gone = {backs[i] for i, a in enumerate(replicas) if a in down}
        web = "\n".join(f"    server {b} down;" if b in gone else
                        f"    server {b} max_fails=1 fail_timeout={FAIL_TIMEOUT_S}s;"
                        for b in backs)
        loopback = front.rsplit(":", 1)[0].strip("[]") in ("localhost", "127.0.0.1", "::1")
        out += HTTP_FRONT.format(servers=web, listen=front,
                                 tls=" ssl http2" if tls_cert else "",
                                 certificates=certificates, tries=len(backs),
                                 host_check=LOOPBACK_HOST_CHECK if loopback else "",
                                 # the replicas listen on loopback and answer those names
                                 forward_host="localhost")
    return out


def standalone_config(http: str, run_dir: str) -> str:
    """A whole nginx.conf around `http` (from `nginx_config`), with its pid file and
    temporary files in `run_dir` and its log on standard error."""
    return MAIN.format(http="".join(f"    {line}\n" if line else "\n"
                                    for line in http.splitlines()), run_dir=run_dir)


def find_nginx() -> str:
    """The nginx program (on PATH, or /usr/sbin/nginx, where Debian puts it).

    Raises:
        NginxError: it is not installed (saying which package to install).
    """
    found = shutil.which("nginx") or shutil.which("nginx", path=SBIN_DIRS)
    if found is None:
        raise NginxError(f"--balancer nginx: nginx is not installed; install Debian's "
                         f"{DEBIAN_PACKAGE} package (apt-get install {DEBIAN_PACKAGE})")
    return found


def die_with_parent() -> None:
    """In the child: SIGTERM when the parent dies (Linux), so nothing outlives it."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class NginxProcess:
    """nginx running `http` (see `nginx_config`) in the foreground, its files in `run_dir`.

    Args:
        http: the http-context configuration.
        run_dir: an existing folder for nginx.conf, the pid file and temporary files.
        log: file that receives nginx's messages (default: this process's stderr).
        start_timeout: seconds to wait for nginx to listen.
    """

    def __init__(self, http: str, run_dir: str, *, listen: tuple[str, int],
                 log: int | None = None, start_timeout: float = 10.0) -> None:
        self.binary = find_nginx()
        self.run_dir = run_dir
        self.conf = os.path.join(run_dir, "nginx.conf")
        os.chmod(run_dir, 0o755)   # run as root, nginx's workers are another user
        self.write(http)
        self._check()
        self.proc = subprocess.Popen(self._command(), stdout=log, stderr=log,
                                     start_new_session=True, preexec_fn=die_with_parent)
        self._wait_listening(listen, start_timeout)

    def _command(self, *extra: str) -> list[str]:
        return [self.binary, "-p", self.run_dir, "-c", self.conf, "-e", "stderr", *extra]

    def write(self, http: str) -> None:
        """Write the configuration (nginx reads it at start and on `reload`)."""
        with open(self.conf, "w", encoding="utf-8") as fh:
            fh.write(standalone_config(http, self.run_dir))

    def _check(self) -> None:
        """``nginx -t``: a configuration nginx cannot use (e.g. built without the gRPC
        module) is refused with nginx's own line."""
        out = subprocess.run(self._command("-q", "-t"), capture_output=True, text=True)
        if out.returncode != 0:
            lines = [line for line in out.stderr.splitlines() if "emerg" in line] or \
                out.stderr.splitlines() or ["no message"]
            raise NginxError(f"nginx refused its configuration: {lines[0]}")

    def _wait_listening(self, listen: tuple[str, int], timeout: float) -> None:
        import socket

        end = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise NginxError(f"nginx stopped at start (exit {self.proc.returncode}); "
                                 f"its messages are above")
            try:
                with socket.create_connection(listen, timeout=1.0):
                    return
            except OSError:
                if time.monotonic() > end:
                    self.stop()
                    raise NginxError(f"nginx did not listen on port {listen[1]} within "
                                     f"{timeout:g} s") from None
                time.sleep(0.05)

    def reload(self, http: str) -> None:
        """Apply a new configuration: nginx starts new workers with it and lets the old
        ones finish their calls (SIGHUP)."""
        self.write(http)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGHUP)

    def stop(self, grace: float = 10.0) -> int | None:
        """Graceful stop (SIGQUIT: calls in flight finish), SIGKILL after `grace` s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            return wait_or_kill(self.proc, grace)
        return self.proc.returncode


def wait_or_kill(proc: subprocess.Popen[Any], grace: float) -> int:
    """`proc`'s exit status once it has exited, its process group killed (SIGKILL) when it
    has not within `grace` seconds of being asked to stop."""
    try:
        return proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait()
