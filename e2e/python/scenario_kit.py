"""What the python-gitlab e2e scenarios share: checks, users made by root, the scenario registry and
the runner that prints one JSON report line. Reads CANOPY_URL, CANOPY_ROOT_TOKEN, CANOPY_SECRETS_FILE."""
import json
import os
import secrets
import sys
import time
import traceback

try:
    import gitlab
except ImportError:
    missing = f"python-gitlab is missing for {sys.executable}: apt-get install python3-gitlab"
    print(json.dumps({"ok": False, "error": missing}))
    sys.exit(2)

URL = os.environ["CANOPY_URL"]
ROOT_TOKEN = os.environ["CANOPY_ROOT_TOKEN"]
SECRETS_FILE = os.environ.get("CANOPY_SECRETS_FILE")
RUN = secrets.token_hex(4)
# How long a read may wait for an event to reach the other replica (never a fixed sleep).
PROPAGATION_S = 10


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def equal(actual, expected, what):
    check(actual == expected, f"{what}: expected {expected!r}, got {actual!r}")


def eventually(probe, what):
    """Calls probe until it returns a truthy value (or PROPAGATION_S passed); returns that value."""
    deadline = time.monotonic() + PROPAGATION_S
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f"{what}: not seen within {PROPAGATION_S} s")
        time.sleep(0.05)


def refusal(error_class, action):
    """Runs action, which must raise error_class; returns the error."""
    try:
        action()
    except error_class as err:
        return err
    raise Failure(f"expected {error_class.__name__}, the call succeeded")


def keep_secret(value):
    if SECRETS_FILE:
        with open(SECRETS_FILE, "a", encoding="utf-8") as f:
            f.write(value + "\n")
    return value


def client(token):
    return gitlab.Gitlab(URL, private_token=token, timeout=20)


class World:
    """What the scenarios share: clients and the users and groups they made."""

    def __init__(self):
        self.root = client(ROOT_TOKEN)
        self.users = {}
        self.groups = {}
        # What the test driving the script checks on its side (deliveries at its receiver): reported.
        self.facts = {}

    def new_user(self, name):
        username = f"py-{name}-{RUN}"
        password = keep_secret("pw-" + secrets.token_urlsafe(12))
        user = self.root.users.create(
            {
                "username": username,
                "email": f"{username}@example.com",
                "name": f"Python {name}",
                "password": password,
                "skip_confirmation": True,
            }
        )
        token = user.personal_access_tokens.create({"name": "python-gitlab", "scopes": ["api"]})
        keep_secret(token.token)
        self.users[name] = {"id": user.id, "username": username, "gl": client(token.token)}
        return self.users[name]

    def gl(self, name):
        return self.users[name]["gl"]


SCENARIOS = []
NEEDS = {}


def scenario(*needs):
    """A scenario, run in the order declared, after the scenarios it needs (what they made it uses)."""

    def register(fn):
        SCENARIOS.append(fn)
        NEEDS[fn.__name__] = needs
        return fn

    return register


def where(err):
    """The scenario's own line that failed (not a helper's here, nor python-gitlab's)."""
    frames = traceback.extract_tb(err.__traceback__)
    own = [f for f in frames if os.path.basename(f.filename) not in ("scenario_kit.py",)]
    own = [f for f in own if "/gitlab/" not in f.filename] or frames
    last = own[-1]
    return f"{os.path.basename(last.filename)}:{last.lineno}: {last.line}"


def run(names):
    """Runs the named scenarios (and those they need), prints the JSON report; the exit code."""
    unknown = set(names) - set(NEEDS)
    if unknown:
        print(json.dumps({"ok": False, "error": f"unknown scenarios {sorted(unknown)}"}))
        return 2
    wanted = set(names or NEEDS)
    for fn in reversed(SCENARIOS):  # a needed scenario is declared before the ones that need it
        if fn.__name__ in wanted:
            wanted.update(NEEDS[fn.__name__])
    chosen = [fn for fn in SCENARIOS if fn.__name__ in wanted]
    world, passed = World(), []
    for fn in chosen:
        try:
            fn(world)
        except Exception as err:  # report any failure, with where it happened
            failed = {"scenario": fn.__name__, "error": f"{type(err).__name__}: {err}"}
            failed["where"] = where(err)
            print(json.dumps({"ok": False, "passed": passed, "failed": failed}))
            print(f"scenario {fn.__name__} failed: {err}", file=sys.stderr)
            return 1
        passed.append(fn.__name__)
    report = {"ok": True, "passed": passed, "python_gitlab": gitlab.__version__}
    if world.facts:
        report["facts"] = world.facts
    print(json.dumps(report))
    return 0
