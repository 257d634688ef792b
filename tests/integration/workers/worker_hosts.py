"""Two lab hosts and a broker host on this one machine, for the remote-seat tests.

The machine's RabbitMQ listens on 127.0.0.1:5672 only and is shared, so it is not reconfigured.
Instead, as a lab would see a production broker:

* a "broker host" network namespace runs a TLS front (socat ``OPENSSL-LISTEN`` with a certificate made
  here by a CA made here) whose plain side is a Unix socket, bridged in the root namespace to
  127.0.0.1:5672 (like stunnel before a broker; docs/workers.md explains RabbitMQ's own TLS listener);
* each lab host is a namespace of its own joined to the broker host by a veth pair, so a worker there
  reaches the broker only over that link, as ``amqps://USER@10.231.N.1:5671/league-QUEUE``, and checks
  the broker's certificate and address against the CA.

Every address is inside namespaces made here. When namespaces cannot be made (not root), the hosts
fall back to loopback (plain AMQP to 127.0.0.1) and ``kind`` says so.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from league.workers.broker import BrokerTarget, parse_target

LEAGUE = str(Path(sys.executable).with_name("league"))
TLS_PORT = 5671


@dataclass
class Lab:
    """A lab provisioned on the real broker: its queue (also its user's name) and its password file."""

    queue: str
    password_file: Path

    def login(self, host: str = "127.0.0.1", vhost: str | None = None) -> BrokerTarget:
        return parse_target(f"amqp://{self.queue}@{host}:5672/{vhost or 'league-' + self.queue}",
                            password_file=self.password_file)


@dataclass
class Host:
    """Where a worker runs: a namespace (or none: loopback) and how it reaches the broker."""

    name: str
    netns: str
    broker_host: str
    port: int
    tls: bool

    def prefix(self) -> list[str]:
        return enter(self.netns) if self.netns else []

    def url(self, user: str, vhost: str) -> str:
        return f"{'amqps' if self.tls else 'amqp'}://{user}@{self.broker_host}:{self.port}/{vhost}"


@dataclass
class Hosts:
    kind: str  # "netns" or "loopback"
    a: Host
    b: Host
    ca_file: str = ""
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)


def enter(netns: str) -> list[str]:
    """Run a command in the namespace's network only. Not `ip netns exec`: that also remounts /sys in a
    mount namespace of its own, which hides the cgroup hierarchy the sandbox caps each seat run with."""
    return ["nsenter", f"--net=/run/netns/{netns}", "--"]


def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, timeout=30)


def _make_tls(folder: Path, addresses: list[str]) -> tuple[Path, Path, Path]:
    """A CA, and a server certificate it signs for ``addresses`` (IP subject alternative names)."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "league test broker CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
          .not_valid_after(now + dt.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    sans = [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "broker")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .sign(ca_key, hashes.SHA256()))
    ca_file, cert_file, key_file = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return ca_file, cert_file, key_file


def _can_make_netns() -> bool:
    return os.geteuid() == 0 and all(shutil.which(c) for c in ("ip", "nsenter", "socat", "ss"))


@contextmanager
def lab_hosts(folder: Path) -> Iterator[Hosts]:
    """Two lab hosts joined to a broker host over veth pairs (or loopback), torn down afterwards."""
    if not _can_make_netns():
        yield Hosts("loopback", Host("host-a", "", "127.0.0.1", 5672, False),
                    Host("host-b", "", "127.0.0.1", 5672, False))
        return
    tag = uuid.uuid4().hex[:6]
    broker_ns, names = f"lgb{tag}", {"a": f"lga{tag}", "b": f"lgc{tag}"}
    made: list[str] = []
    hosts = None
    try:
        for ns in (broker_ns, *names.values()):
            _run("ip", "netns", "add", ns)
            made.append(ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
        subnets = {"a": 1, "b": 2}
        for key, ns in names.items():
            lab_end, broker_end = f"vl{key}{tag}", f"vb{key}{tag}"
            _run("ip", "link", "add", lab_end, "type", "veth", "peer", "name", broker_end)
            _run("ip", "link", "set", lab_end, "netns", ns)
            _run("ip", "link", "set", broker_end, "netns", broker_ns)
            _run("ip", "-n", ns, "addr", "add", f"10.231.{subnets[key]}.2/30", "dev", lab_end)
            _run("ip", "-n", broker_ns, "addr", "add", f"10.231.{subnets[key]}.1/30", "dev", broker_end)
            _run("ip", "-n", ns, "link", "set", lab_end, "up")
            _run("ip", "-n", broker_ns, "link", "set", broker_end, "up")
        ca_file, cert_file, key_file = _make_tls(folder, ["10.231.1.1", "10.231.2.1"])
        sock = folder / "amqp.sock"
        hosts = Hosts("netns", Host("host-a", names["a"], "10.231.1.1", TLS_PORT, True),
                      Host("host-b", names["b"], "10.231.2.1", TLS_PORT, True), str(ca_file))
        hosts.procs.append(subprocess.Popen(
            ["socat", f"UNIX-LISTEN:{sock},fork,reuseaddr", "TCP:127.0.0.1:5672"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        hosts.procs.append(subprocess.Popen(
            [*enter(broker_ns), "socat",
             f"OPENSSL-LISTEN:{TLS_PORT},fork,reuseaddr,cert={cert_file},key={key_file},verify=0",
             f"UNIX-CONNECT:{sock}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_listening(broker_ns, TLS_PORT)
        yield hosts
    finally:
        for proc in (hosts.procs if hosts else []):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30, check=False)


def _wait_listening(netns: str, port: int, timeout_s: float = 10.0) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        out = subprocess.run([*enter(netns), "ss", "-ltn"], capture_output=True, text=True,
                             timeout=10, check=False).stdout
        if f":{port} " in out:
            return
        time.sleep(0.1)
    raise RuntimeError(f"the TLS front in {netns} does not listen on {port}")


@dataclass
class WorkerProc:
    """A real `league worker` process (its own process group, so a SIGKILL takes its pool with it)."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if " ready." in self.text():
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker {self.name} exited {self.proc.returncode}:\n{self.text()[-3000:]}")
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"worker {self.name} not ready after {timeout_s} s:\n{self.text()[-3000:]}")

    def netns_inode(self) -> str:
        return os.readlink(f"/proc/{self.proc.pid}/ns/net")

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once (a machine that died, not a shutdown)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def start_worker(host: Host, *, queue: str, password_file: Path, ca_file: str, folder: Path, name: str,
                 concurrency: int = 1, env: Mapping[str, str] | None = None, wait: bool = True) -> WorkerProc:
    """`league worker` on ``host`` for ``queue``; returns once Celery says it is ready (``wait=False``: at
    once, so that several workers start side by side; call ``wait_ready`` on each then)."""
    log = folder / f"worker-{name}.log"
    cmd = [*host.prefix(), LEAGUE, "worker", "--queue", queue, "--broker", host.url(queue, f"league-{queue}"),
           "--password-file", str(password_file), "--concurrency", str(concurrency), "--name", name]
    if host.tls:
        cmd += ["--ca-file", ca_file]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, **(env or {})})
    worker = WorkerProc(name, proc, log)
    if not wait:
        return worker
    try:
        worker.wait_ready()
    except Exception:
        worker.stop()
        raise
    return worker


WORKER_KEY = "sk-worker-b-" + uuid.uuid4().hex
CRED_SECRET = "cred-file-secret-" + uuid.uuid4().hex


@dataclass
class Pool:
    """Two labs, each served by one real `league worker` (2 pool processes) on its own host. Lab B's worker
    holds a vendor key and a credential file of its own (test_remote_seats checks they never travel)."""

    lab_a: Lab
    lab_b: Lab
    worker_a: WorkerProc
    worker_b: WorkerProc
    creds: Path
    league: BrokerTarget
