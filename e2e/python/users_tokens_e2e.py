#!/usr/bin/python3
"""Impersonation tokens, user statuses and user activities driven by python-gitlab (Debian's
python3-gitlab 3.12), unchanged: user.impersonationtokens, gl.user.status / user.status and
gl.user_activities.

Usage: CANOPY_URL=http://127.0.0.1:8080 CANOPY_ROOT_TOKEN=glpat-... /usr/bin/python3 users_tokens_e2e.py [scenario ...]

Prints one JSON line {"ok": bool, "passed": [...], "failed": {...}} and exits 1 on the first failure
(see scenario_kit.py).
"""
import datetime
import sys

# scenario_kit first: it reports a missing python-gitlab as a JSON line rather than a traceback.
from scenario_kit import RUN, check, client, equal, eventually, keep_secret, refusal, run, scenario

from gitlab.exceptions import (
    GitlabAuthenticationError,
    GitlabCreateError,
    GitlabGetError,
    GitlabListError,
    GitlabUpdateError,
)


def in_days(days):
    return (datetime.date.today() + datetime.timedelta(days=days)).isoformat()


@scenario()
def users(w):
    for name in ("dora", "eve"):
        w.new_user(name)


@scenario("users")
def impersonation_tokens(w):
    user = w.root.users.get(w.users["dora"]["id"])
    made = user.impersonationtokens.create({"name": f"imp-{RUN}", "scopes": ["api", "read_user"], "expires_at": in_days(7)})
    keep_secret(made.token)
    equal((made.impersonation, made.active, made.scopes), (True, True, ["api", "read_user"]), "the new token")
    # The token acts as the user.
    acting = client(made.token)
    acting.auth()
    equal(acting.user.username, w.users["dora"]["username"], "the impersonated user")
    again = user.impersonationtokens.get(made.id)
    equal((again.id, again.name, again.impersonation), (made.id, f"imp-{RUN}", True), "read back")
    check(not hasattr(again, "token"), "the secret is shown only once")
    gone = user.impersonationtokens.create({"name": f"gone-{RUN}", "scopes": ["api"], "expires_at": in_days(1)})
    keep_secret(gone.token)
    gone.delete()
    equal([t.id for t in user.impersonationtokens.list(state="active")], [made.id], "active tokens")
    equal([t.id for t in user.impersonationtokens.list(state="inactive")], [gone.id], "inactive tokens")
    equal(sorted(t.id for t in user.impersonationtokens.list(all=True)), sorted([made.id, gone.id]), "all")
    # Revoked: refused at once.
    user.impersonationtokens.delete(made.id)
    err = refusal(GitlabAuthenticationError, lambda: client(made.token).auth())
    equal(err.response_code, 401, "a revoked impersonation token")
    # Only administrators manage them.
    eve = w.gl("eve")
    err = refusal(GitlabListError, lambda: eve.users.get(w.users["dora"]["id"], lazy=True).impersonationtokens.list())
    equal((err.response_code, err.error_message), (403, "403 Forbidden"), "a non-admin listing")
    err = refusal(GitlabGetError, lambda: user.impersonationtokens.get(999999999))
    equal((err.response_code, err.error_message), (404, "404 Impersonation Token Not Found"), "a missing token")
    err = refusal(GitlabCreateError, lambda: user.impersonationtokens.create({"name": "x", "scopes": ["nope"], "expires_at": in_days(1)}))
    equal((err.response_code, err.error_message), (400, {"scopes": ["can only contain available scopes"]}), "a bad scope")


@scenario("users")
def status(w):
    gl = w.gl("eve")
    gl.auth()
    current = gl.user.status.get()
    equal((current.emoji, current.message), (None, None), "no status yet")
    gl.user.status.update(new_data={"emoji": "coffee", "message": "Out for <coffee>"})
    mine = gl.user.status.get()
    equal((mine.emoji, mine.message, mine.message_html), ("coffee", "Out for <coffee>", "Out for &lt;coffee&gt;"), "set")
    mine.message = "Back soon"
    mine.save()
    equal(gl.user.status.get().message, "Back soon", "saved")
    # Anyone reads it through the user.
    other = w.gl("dora").users.get(w.users["eve"]["id"], lazy=True).status.get()
    equal((other.emoji, other.message, other.availability), ("speech_balloon", "Back soon", "not_set"), "read by another")
    err = refusal(GitlabUpdateError, lambda: gl.user.status.update(new_data={"emoji": "no_such_emoji"}))
    equal((err.response_code, err.error_message), (400, {"emoji": ["is not a valid emoji name"]}), "a bad emoji")


@scenario("users")
def activities(w):
    # Every signed-in request records the day; the record is written in the background.
    w.gl("dora").auth()
    today = datetime.date.today().isoformat()

    def seen():
        listed = w.root.user_activities.list(**{"from": today}, all=True)
        return [a for a in listed if a.username == w.users["dora"]["username"]]

    mine = eventually(seen, "dora's activity")
    equal((mine[0].last_activity_on, mine[0].last_activity_at), (today, today), "dora's activity")
    err = refusal(GitlabListError, lambda: w.gl("eve").user_activities.list())
    equal(err.response_code, 403, "a non-admin listing activities")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
