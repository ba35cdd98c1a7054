#!/usr/bin/python3
"""The user state actions of the Users API driven by python-gitlab (Debian's python3-gitlab 3.x), unchanged:
user.block(), unblock(), ban(), unban(), deactivate(), activate(), approve() and reject().

Usage: CANOPY_URL=... CANOPY_ROOT_TOKEN=glpat-... [CANOPY_PENDING_USERS=id,id] /usr/bin/python3 users_state_e2e.py [scenario ...]

CANOPY_PENDING_USERS names two users pending approval (no API call makes one: the test driving this
script sets them so in the database, as a sign-up waiting for approval would be). Prints one JSON
line {"ok": bool, "passed": [...], "failed": {...}} and exits 1 on the first failure.
"""
import os
import sys

# scenario_kit first: it reports a missing python-gitlab as a JSON line rather than a traceback.
from scenario_kit import check, equal, refusal, run, scenario

from gitlab.exceptions import (
    GitlabActivateError,
    GitlabBanError,
    GitlabBlockError,
    GitlabDeactivateError,
    GitlabGetError,
    GitlabUnbanError,
    GitlabUserApproveError,
    GitlabUserRejectError,
)

BLOCKED = "403 Forbidden - Your account has been blocked."


def refused_with(client, message):
    """The client's token is refused with 403 and this message (python-gitlab's GET /user)."""
    err = refusal(GitlabGetError, client.auth)
    equal((err.response_code, err.error_message), (403, message), "the refusal of the token")


def works(client):
    client.auth()
    return True


@scenario()
def users_and_tokens(w):
    for name in ("dora", "eve"):
        w.new_user(name)
    check(works(w.gl("dora")), "dora's token works")


@scenario("users_and_tokens")
def block_and_unblock(w):
    dora = w.root.users.get(w.users["dora"]["id"])
    equal(dora.block(), True, "block() the first time")
    equal(dora.state, "blocked", "python-gitlab's state after block()")
    equal(dora.block(), None, "block() of a blocked user (GitLab answers null)")
    refused_with(w.gl("dora"), BLOCKED)
    equal(w.root.users.get(dora.id).state, "blocked", "the state read back")
    equal(dora.unblock(), True, "unblock()")
    equal(dora.unblock(), False, "unblock() of an active user")
    check(works(w.gl("dora")), "dora's token works again")


@scenario("users_and_tokens")
def ban_and_unban(w):
    dora = w.root.users.get(w.users["dora"]["id"])
    equal(dora.ban(), True, "ban()")
    equal(dora.state, "banned", "python-gitlab's state after ban()")
    err = refusal(GitlabBanError, dora.ban)
    equal((err.response_code, err.error_message), (403, "You cannot ban banned users."), "ban() twice")
    refused_with(w.gl("dora"), BLOCKED)
    equal(dora.unban(), True, "unban()")
    err = refusal(GitlabUnbanError, dora.unban)
    equal((err.response_code, err.error_message), (403, "You cannot unban active users."), "unban() twice")
    check(works(w.gl("dora")), "dora's token works again")


@scenario("users_and_tokens")
def deactivate_and_activate(w):
    # dora has used her token today: GitLab deactivates no one active in the past 90 days.
    active = w.root.users.get(w.users["dora"]["id"], lazy=True)
    err = refusal(GitlabDeactivateError, active.deactivate)
    equal(
        (err.response_code, err.error_message),
        (403, "The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated"),
        "deactivate() of a user active today",
    )
    w.new_user("dormant")  # made by root; never active
    dormant = w.root.users.get(w.users["dormant"]["id"])
    equal(dormant.deactivate(), True, "deactivate() of a user never active")
    equal(w.root.users.get(dormant.id).state, "deactivated", "the state read back")
    equal(dormant.deactivate(), None, "deactivate() twice (GitLab answers null)")
    err = refusal(GitlabGetError, w.gl("dormant").auth)
    equal(err.response_code, 403, "a deactivated user's token")
    check("Your account has been deactivated by your administrator" in err.error_message, err.error_message)
    equal(dormant.activate(), True, "activate()")
    equal(dormant.activate(), False, "activate() of an active user")
    check(works(w.gl("dormant")), "dormant's token works again")
    # Blocked users must be unblocked first.
    dormant.block()
    err = refusal(GitlabActivateError, dormant.activate)
    equal(
        (err.response_code, err.error_message),
        (403, "403 Forbidden - A blocked user must be unblocked to be activated"),
        "activate() of a blocked user",
    )
    dormant.unblock()


@scenario("users_and_tokens")
def refusals(w):
    eve = w.gl("eve")
    as_eve = eve.users.get(w.users["dora"]["id"], lazy=True)
    err = refusal(GitlabBlockError, as_eve.block)
    equal((err.response_code, err.error_message), (403, "403 Forbidden"), "a user blocks another")
    err = refusal(GitlabUserApproveError, as_eve.approve)
    equal((err.response_code, err.error_message), (403, "You are not allowed to approve a user"), "a user approves")
    err = refusal(GitlabUserRejectError, as_eve.reject)
    equal((err.response_code, err.error_message), (403, "You are not allowed to reject a user"), "a user rejects")
    dora = w.root.users.get(w.users["dora"]["id"], lazy=True)
    err = refusal(GitlabUserApproveError, dora.approve)
    equal(
        (err.response_code, err.error_message),
        (409, "The user you are trying to approve is not pending approval"),
        "approve() of an active user",
    )
    err = refusal(GitlabUserRejectError, dora.reject)
    equal((err.response_code, err.error_message), (409, "User does not have a pending request"), "reject() of an active user")
    w.root.auth()
    root_user = w.root.users.get(w.root.user.id, lazy=True)
    err = refusal(GitlabBlockError, root_user.block)
    equal(
        (err.response_code, err.error_message),
        (403, "403 Forbidden - The API initiating user cannot be blocked by the API"),
        "root blocks themself",
    )
    missing = w.root.users.get(999999999, lazy=True)
    err = refusal(GitlabBlockError, missing.block)
    equal((err.response_code, err.error_message), (404, "404 User Not Found"), "block() of a missing user")
    check(works(w.gl("dora")), "dora is untouched")


@scenario("users_and_tokens")
def list_filters(w):
    dora_id = w.users["dora"]["id"]
    w.root.users.get(dora_id, lazy=True).ban()
    blocked_ids = {u.id for u in w.root.users.list(blocked=True, iterator=True)}
    check(dora_id not in blocked_ids, "a banned user is not in blocked=true (GitLab: blocked and ldap_blocked)")
    w.root.users.get(dora_id, lazy=True).unban()
    w.root.users.get(dora_id, lazy=True).block()
    blocked_ids = {u.id for u in w.root.users.list(blocked=True, iterator=True)}
    check(dora_id in blocked_ids, "a blocked user is in blocked=true")
    seen_by_eve = {u.id for u in w.gl("eve").users.list(iterator=True)}
    check(dora_id not in seen_by_eve, "a non-administrator does not see blocked users")
    active_ids = {u.id for u in w.root.users.list(active=True, iterator=True)}
    check(dora_id not in active_ids, "a blocked user is not in active=true")
    w.root.users.get(dora_id, lazy=True).unblock()


@scenario()
def approve_and_reject(w):
    ids = [int(i) for i in os.environ.get("CANOPY_PENDING_USERS", "").split(",") if i]
    equal(len(ids), 2, "two users pending approval were prepared")
    approved, rejected = (w.root.users.get(i) for i in ids)
    equal((approved.state, rejected.state), ("blocked_pending_approval",) * 2, "their state")
    equal(approved.approve(), {"message": "Success"}, "approve()")
    equal(w.root.users.get(approved.id).state, "active", "the approved user's state")
    equal(rejected.reject(), {"message": "Success"}, "reject()")
    err = refusal(GitlabGetError, lambda: w.root.users.get(rejected.id))
    equal(err.response_code, 404, "a rejected user is gone")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
