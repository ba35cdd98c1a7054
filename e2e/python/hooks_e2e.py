#!/usr/bin/python3
"""Group webhooks driven by python-gitlab (Debian's python3-gitlab 3.12), unchanged, as an owner would.

Usage: CANOPY_URL=... CANOPY_ROOT_TOKEN=... CANOPY_HOOK_RECEIVER=http://127.0.0.1:<port>
/usr/bin/python3 hooks_e2e.py [scenario ...]

group.hooks create/list/get, hook.save(), delete, a Maintainer refused; then a hook on the test's
receiver, a subgroup and a member made through python-gitlab (the deliveries they fire are checked by
the test, from the report's "facts"), and the test trigger. Prints one JSON line, as groups_e2e.py does.
"""
import os
import secrets
import sys
import time

from scenario_kit import RUN, Failure, check, equal, keep_secret, refusal, run, scenario

import gitlab
from gitlab.exceptions import GitlabGetError, GitlabHttpError, GitlabListError

RECEIVER = os.environ.get("CANOPY_HOOK_RECEIVER", "")
DEVELOPER, MAINTAINER = 30, 40


@scenario()
def owner_group_and_project(w):
    owner = w.new_user("hook-owner")
    w.new_user("hook-maintainer")
    member = w.new_user("hook-member")
    gl = owner["gl"]
    group = gl.groups.create({"name": f"Py Hooks {RUN}", "path": f"py-hooks-{RUN}", "visibility": "private"})
    group.members.create({"user_id": w.users["hook-maintainer"]["id"], "access_level": MAINTAINER})
    # The test trigger takes its sample from the group's first project (made early: the hooks
    # service knows a project from its event).
    project = gl.projects.create({"name": "Sample", "namespace_id": group.id})
    w.groups["hooks"] = group
    w.facts.update(
        group={"id": group.id, "name": group.name, "path": group.path, "full_path": group.full_path},
        member={"id": member["id"], "username": member["username"], "name": "Python hook-member"},
        project_id=project.id,
    )


@scenario("owner_group_and_project")
def hooks_crud(w):
    group = w.groups["hooks"]
    token = keep_secret("tok-" + secrets.token_urlsafe(12))
    hook = group.hooks.create(
        {"url": f"{RECEIVER}/py-crud", "token": token, "push_events": False, "subgroup_events": True}
    )
    equal(
        (hook.url, hook.group_id, hook.push_events, hook.subgroup_events, hook.member_events),
        (f"{RECEIVER}/py-crud", group.id, False, True, False),
        "the hook made",
    )
    equal((hook.enable_ssl_verification, hook.alert_status), (True, "executable"), "the defaults")
    check(hook.signing_secret.startswith("whsec_"), "the signing secret is shown on create")
    keep_secret(hook.signing_secret)
    check("token" not in hook.attributes, "the token is never answered")

    equal([h.id for h in group.hooks.list(get_all=True)], [hook.id], "group.hooks.list")
    got = group.hooks.get(hook.id)
    equal((got.url, got.subgroup_events), (f"{RECEIVER}/py-crud", True), "group.hooks.get")
    check("signing_secret" not in got.attributes, "the signing secret is shown only on create")

    # save() sends url (python-gitlab's required update attribute) with what changed.
    got.url = f"{RECEIVER}/py-crud-moved"
    got.member_events = True
    got.token = token
    got.save()
    equal((got.url, got.member_events), (f"{RECEIVER}/py-crud-moved", True), "the answer of save()")
    again = group.hooks.get(hook.id)
    equal(
        (again.url, again.member_events, again.subgroup_events, again.push_events),
        (f"{RECEIVER}/py-crud-moved", True, True, False),
        "re-read after save()",
    )

    # Owners only: a Maintainer is refused (403), not told the group is missing.
    as_maintainer = w.gl("hook-maintainer").groups.get(group.id, lazy=True)
    err = refusal(GitlabListError, lambda: as_maintainer.hooks.list())
    equal((err.response_code, err.error_message), (403, "403 Forbidden"), "a Maintainer's list")

    again.delete()
    err = refusal(GitlabGetError, lambda: group.hooks.get(hook.id))
    equal((err.response_code, err.error_message), (404, "404 Not found"), "the deleted hook")
    equal(group.hooks.list(get_all=True), [], "no hooks left")


@scenario("hooks_crud")
def delivery_hook(w):
    group = w.groups["hooks"]
    token = keep_secret("tok-" + secrets.token_urlsafe(12))
    hook = group.hooks.create(
        {
            "url": f"{RECEIVER}/py-deliveries",
            "token": token,
            "push_events": False,
            "subgroup_events": True,
            "member_events": True,
        }
    )
    w.facts.update(hook={"id": hook.id, "token": token, "signing_secret": keep_secret(hook.signing_secret)})


@scenario("delivery_hook")
def subgroup_and_member(w):
    gl, group = w.gl("hook-owner"), w.groups["hooks"]
    sub = gl.groups.create({"name": f"Py Sub {RUN}", "path": f"py-sub-{RUN}", "parent_id": group.id})
    group.members.create({"user_id": w.facts["member"]["id"], "access_level": DEVELOPER})
    w.facts["subgroup"] = {"id": sub.id, "name": sub.name, "path": sub.path, "full_path": sub.full_path}


@scenario("delivery_hook")
def test_trigger(w):
    """python-gitlab 3.12 has no group hook test method: its raw http_post, as a script would."""
    gl, group = w.gl("hook-owner"), w.groups["hooks"]
    path = f"/groups/{group.id}/hooks/{w.facts['hook']['id']}/test/push_events"
    # Until the hooks service has the project's event: a few tries, far apart (5 a minute are allowed).
    for wait in (1, 2, 4, 8, None):
        try:
            equal(gl.http_post(path), {"message": "201 Created"}, "the test trigger")
            return
        except GitlabHttpError as err:
            no_project = err.response_code == 422 and "project with commits" in str(err.error_message)
            if not no_project or wait is None:
                raise Failure(f"test trigger: {err.response_code} {err.error_message}")
            time.sleep(wait)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
