#!/usr/bin/python3
"""User custom attributes driven by python-gitlab (Debian's python3-gitlab 3.12), unchanged.

Usage: CANOPY_URL=http://127.0.0.1:8080 CANOPY_ROOT_TOKEN=glpat-... /usr/bin/python3 users_custom_attributes_e2e.py
Prints one JSON line {"ok": bool, "passed": [...], "failed": {...}} (scenario_kit.py).
"""
import sys

from scenario_kit import RUN, equal, refusal, run, scenario

from gitlab.exceptions import GitlabGetError, GitlabListError


@scenario()
def users(w):
    w.new_user("tagged")
    w.new_user("plain")


@scenario("users")
def set_get_list_delete(w):
    user = w.root.users.get(w.users["tagged"]["id"], lazy=True)
    attr = user.customattributes.set("team", "core")
    equal((attr.key, attr.value), ("team", "core"), "set")
    user.customattributes.set("team", f"platform-{RUN}")
    user.customattributes.set("office", "Zürich ☕")
    equal(user.customattributes.get("team").value, f"platform-{RUN}", "get after a second set")
    listed = {a.key: a.value for a in user.customattributes.list()}
    equal(listed, {"team": f"platform-{RUN}", "office": "Zürich ☕"}, "list")
    user.customattributes.delete("office")
    err = refusal(GitlabGetError, lambda: user.customattributes.get("office"))
    equal((err.response_code, err.error_message), (404, "404 Not found"), "deleted attribute")


@scenario("set_get_list_delete")
def filter_users(w):
    found = w.root.users.list(custom_attributes={"team": f"platform-{RUN}"}, get_all=True)
    equal([u.id for u in found], [w.users["tagged"]["id"]], "users filtered by custom attribute")
    shown = w.root.users.get(w.users["tagged"]["id"], with_custom_attributes=True)
    equal(shown.custom_attributes, [{"key": "team", "value": f"platform-{RUN}"}], "with_custom_attributes")


@scenario("set_get_list_delete")
def refused_to_others(w):
    # A user, even about themselves: 403; the filter is ignored for them, as GitLab ignores it.
    own = w.gl("tagged").users.get(w.users["tagged"]["id"], lazy=True)
    err = refusal(GitlabListError, own.customattributes.list)
    equal(err.response_code, 403, "custom attributes as the user")
    seen = w.gl("plain").users.list(custom_attributes={"team": "no-such-team"}, username=w.users["tagged"]["username"])
    equal([u.id for u in seen], [w.users["tagged"]["id"]], "the filter ignored for a non-administrator")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
