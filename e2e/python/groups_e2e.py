#!/usr/bin/python3
"""The Groups API driven by python-gitlab (Debian's python3-gitlab 3.12), unchanged, as a new user would.

Usage: CANOPY_URL=http://127.0.0.1:8080 CANOPY_ROOT_TOKEN=glpat-... /usr/bin/python3 groups_e2e.py [scenario ...]

Runs the named scenarios (all of them, in order, without names; a scenario may rely on what an earlier
one made), prints one JSON line {"ok": bool, "passed": [...], "failed": {...}} and exits 1 on the first
failure. CANOPY_SECRETS_FILE, when set, receives every password and token the script makes (one a line)
so the caller can check that no log line carries them.
"""
import base64
import datetime
import io
import secrets
import sys

# scenario_kit first: it reports a missing python-gitlab as a JSON line rather than a traceback.
from scenario_kit import RUN, check, client, equal, eventually, refusal, run, scenario

import gitlab
from gitlab.exceptions import (
    GitlabAuthenticationError,
    GitlabCreateError,
    GitlabDeleteError,
    GitlabGetError,
)

# A 1x1 PNG: the smallest avatar there is.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@scenario()
def users_and_tokens(w):
    for name in ("alice", "bob", "carol"):
        w.new_user(name)
    w.gl("alice").auth()
    equal(w.gl("alice").user.username, w.users["alice"]["username"], "the token's user")


@scenario("users_and_tokens")
def create_top_and_subgroup(w):
    gl = w.gl("alice")
    top = gl.groups.create({"name": f"Py Top {RUN}", "path": f"py-top-{RUN}", "visibility": "private"})
    equal(top.full_path, f"py-top-{RUN}", "top full_path")
    equal(top.parent_id, None, "top parent_id")
    sub = gl.groups.create({"name": "Sub", "path": "sub", "parent_id": top.id})
    equal(sub.full_path, f"py-top-{RUN}/sub", "subgroup full_path")
    equal(sub.parent_id, top.id, "subgroup parent_id")
    equal(sub.visibility, "private", "subgroup visibility")
    leaf = gl.groups.create({"name": "Leaf", "path": f"leaf-{RUN}", "parent_id": sub.id})
    equal(leaf.full_path, f"py-top-{RUN}/sub/leaf-{RUN}", "leaf full_path")
    w.groups.update(top=top.id, sub=sub.id, leaf=leaf.id)


@scenario("create_top_and_subgroup")
def get_by_id_and_full_path(w):
    gl = w.gl("alice")
    by_id = gl.groups.get(w.groups["sub"])
    by_path = gl.groups.get(f"py-top-{RUN}/sub")  # python-gitlab URL-encodes the slash
    equal(by_path.id, by_id.id, "the group found by full path")
    equal(by_id.name, "Sub", "name")
    check(by_id.web_url.endswith(f"/groups/py-top-{RUN}/sub"), f"web_url {by_id.web_url}")


@scenario("create_top_and_subgroup")
def save_description_and_visibility(w):
    gl = w.gl("alice")
    top = gl.groups.get(w.groups["top"])
    top.description = "Made by python-gitlab"
    top.visibility = "internal"
    top.save()
    equal(top.description, "Made by python-gitlab", "description after save")
    again = gl.groups.get(w.groups["top"])
    equal((again.description, again.visibility), ("Made by python-gitlab", "internal"), "re-read group")
    # A subgroup may not be more visible than its parent: GitLab's message, keyed by attribute.
    sub = gl.groups.get(w.groups["sub"])
    sub.visibility = "public"
    err = refusal(gitlab.exceptions.GitlabUpdateError, sub.save)
    equal(err.response_code, 400, "raising a subgroup above its parent")
    check("visibility_level" in str(err.error_message), f"message {err.error_message}")


@scenario("users_and_tokens")
def list_paging_keyset_and_offset(w):
    gl = w.gl("alice")
    prefix = f"py-many-{RUN}"
    made = sorted(
        gl.groups.create({"name": f"{prefix}-{i:02}", "path": f"{prefix}-{i:02}"}).id for i in range(23)
    )
    # Offset pagination: python-gitlab follows rel="next" page after page.
    pages = gl.groups.list(all_available=True, search=prefix, iterator=True, per_page=5)
    equal((pages.total, pages.total_pages, pages.per_page), (23, 5, 5), "offset totals")
    equal(sorted(g.id for g in pages), made, "every group, by offset")
    # Keyset pagination: only a rel="next" Link with a cursor, no totals.
    keyset = gl.groups.list(
        all_available=True, search=prefix, iterator=True, per_page=4, pagination="keyset", order_by="name"
    )
    walked = [g for g in keyset]
    equal([g.id for g in walked], made, "every group by keyset, in name order")
    equal(keyset.total, None, "keyset pages have no X-Total")
    # One page only, the way list() answers without get_all.
    equal(len(gl.groups.list(search=prefix, per_page=10, get_all=False)), 10, "one page")
    equal(len(gl.groups.list(search=prefix, get_all=True, per_page=7)), 23, "get_all")
    w.groups["many"] = made


@scenario("create_top_and_subgroup")
def subgroups_and_descendants(w):
    top = w.gl("alice").groups.get(w.groups["top"], lazy=True)
    equal([g.id for g in top.subgroups.list()], [w.groups["sub"]], "subgroups")
    equal(
        sorted(g.id for g in top.descendant_groups.list()),
        sorted([w.groups["sub"], w.groups["leaf"]]),
        "descendant groups",
    )
    leaf = [g for g in top.descendant_groups.list(search="leaf")]
    equal([g.full_path for g in leaf], [f"py-top-{RUN}/sub/leaf-{RUN}"], "descendants found by search")


@scenario("create_top_and_subgroup")
def avatar_upload(w):
    gl = w.gl("alice")
    group = gl.groups.get(w.groups["sub"])
    group.avatar = io.BytesIO(PNG)  # python-gitlab sends it as multipart/form-data
    group.save()
    again = gl.groups.get(w.groups["sub"])
    check(again.avatar_url and again.avatar_url.endswith(".png"), f"avatar_url {again.avatar_url}")
    downloaded = gl.http_get(f"/groups/{group.id}/avatar", raw=True)
    equal(downloaded.content, PNG, "the avatar's bytes")
    err = refusal(gitlab.exceptions.GitlabHttpError, lambda: w.gl("bob").http_get(f"/groups/{group.id}/avatar"))
    equal((err.response_code, err.error_message), (404, "404 Group Not Found"), "someone else's group avatar")
    # python-gitlab 3.12 sends `avatar = ""` as an empty file "avatar.png": GitLab refuses it (400) and
    # keeps the avatar; a plain empty value removes it.
    group.avatar = ""
    err = refusal(gitlab.exceptions.GitlabUpdateError, group.save)
    equal(err.response_code, 400, 'avatar = "" as python-gitlab sends it')
    check("avatar" in err.error_message, f"the refusal names the avatar: {err.error_message}")
    equal(bool(gl.groups.get(group.id).avatar_url), True, "the avatar is kept")
    gl.http_put(f"/groups/{group.id}", post_data={"avatar": ""})
    equal(gl.groups.get(group.id).avatar_url, None, "avatar= removes it")


@scenario("create_top_and_subgroup")
def filters(w):
    gl, alice = w.gl("alice"), w.users["alice"]
    owned = {g.id for g in gl.groups.list(owned=True, get_all=True)}
    # GitLab makes the creator a direct Owner of every group they create, subgroups included.
    check({w.groups["top"], w.groups["sub"], w.groups["leaf"]} <= owned, f"owned: {owned}")
    equal(w.gl("bob").groups.list(owned=True), [], "bob owns nothing")
    top_only = gl.groups.list(search=f"py-top-{RUN}", top_level_only=True, get_all=True)
    equal([g.id for g in top_only], [w.groups["top"]], "top_level_only")
    by_path = gl.groups.list(search=f"py-top-{RUN}", order_by="path", sort="desc", get_all=True)
    paths = [g.path for g in by_path]  # the group's own path, as GitLab orders
    equal(paths, sorted(paths, reverse=True), "ordered by path, descending")
    equal(
        sorted(g.full_path for g in by_path),
        [f"py-top-{RUN}", f"py-top-{RUN}/sub", f"py-top-{RUN}/sub/leaf-{RUN}"],
        "found by the search",
    )
    found = gl.groups.get(w.groups["top"], lazy=True).members.list(query=alice["username"])
    equal([m.id for m in found], [alice["id"]], "members found by query")


@scenario("create_top_and_subgroup")
def members(w):
    gl, bob = w.gl("alice"), w.users["bob"]
    top = gl.groups.get(w.groups["top"], lazy=True)
    made = top.members.create({"user_id": bob["id"], "access_level": gitlab.const.DEVELOPER_ACCESS})
    equal((made.username, made.access_level), (bob["username"], 30), "added member")
    member = top.members.get(bob["id"])
    member.access_level = gitlab.const.MAINTAINER_ACCESS
    member.expires_at = "2999-01-31"
    member.save()
    again = top.members.get(bob["id"])
    equal((again.access_level, again.expires_at), (40, "2999-01-31"), "member after save")
    err = refusal(GitlabCreateError, lambda: top.members.create({"user_id": bob["id"], "access_level": 30}))
    equal((err.response_code, err.error_message), (409, "Member already exists"), "second add")
    # members_all of the subgroup: alice (Owner) and bob inherited from the parent.
    sub = gl.groups.get(w.groups["sub"], lazy=True)
    everyone = {m.username: m.access_level for m in sub.members_all.list(get_all=True)}
    equal(everyone, {w.users["alice"]["username"]: 50, bob["username"]: 40}, "members_all of the subgroup")
    equal(sub.members_all.get(bob["id"]).access_level, 40, "members_all.get")
    equal([m.username for m in sub.members.list()], [w.users["alice"]["username"]], "direct members")
    # bob now sees the private subgroup through the parent.
    equal(w.gl("bob").groups.get(w.groups["leaf"]).id, w.groups["leaf"], "bob reads the leaf")
    again.delete()
    err = refusal(GitlabGetError, lambda: top.members.get(bob["id"]))
    equal((err.response_code, err.error_message), (404, "404 Not found"), "removed member")


@scenario("create_top_and_subgroup")
def custom_attributes_as_admin(w):
    group = w.root.groups.get(w.groups["top"], lazy=True)
    attr = group.customattributes.set("plan", "gold")
    equal((attr.key, attr.value), ("plan", "gold"), "set")
    group.customattributes.set("plan", f"platinum-{RUN}")
    group.customattributes.set("team", "core")
    equal(group.customattributes.get("plan").value, f"platinum-{RUN}", "get after a second set")
    listed = {a.key: a.value for a in group.customattributes.list()}
    equal(listed, {"plan": f"platinum-{RUN}", "team": "core"}, "list")
    found = w.root.groups.list(custom_attributes={"plan": f"platinum-{RUN}"}, get_all=True)
    equal([g.id for g in found], [w.groups["top"]], "groups filtered by custom attribute")
    group.customattributes.delete("team")
    err = refusal(GitlabGetError, lambda: group.customattributes.get("team"))
    equal((err.response_code, err.error_message), (404, "404 Not found"), "deleted attribute")
    # Not an administrator: 403.
    as_owner = w.gl("alice").groups.get(w.groups["top"], lazy=True)
    err = refusal(gitlab.exceptions.GitlabListError, as_owner.customattributes.list)
    equal(err.response_code, 403, "custom attributes as the group's owner")


@scenario("create_top_and_subgroup")
def share_and_unshare(w):
    alice, carol = w.gl("alice"), w.users["carol"]
    team = alice.groups.create({"name": f"Py Team {RUN}", "path": f"py-team-{RUN}"})
    alice.groups.get(team.id, lazy=True).members.create({"user_id": carol["id"], "access_level": 50})
    top = alice.groups.get(w.groups["top"])
    top.share(team.id, gitlab.const.REPORTER_ACCESS, expires_at="2999-12-31")
    equal(
        [(s["group_id"], s["group_access_level"], s["expires_at"]) for s in top.shared_with_groups],
        [(team.id, 20, "2999-12-31")],
        "shared_with_groups after share",
    )
    # carol reaches the shared group and its subgroups at the link's level (capped at 20).
    leaf = alice.groups.get(w.groups["leaf"], lazy=True)
    equal(leaf.members_all.get(carol["id"]).access_level, 20, "carol's level through the share")
    equal(w.gl("carol").groups.get(w.groups["leaf"]).id, w.groups["leaf"], "carol reads the leaf")
    err = refusal(GitlabCreateError, lambda: top.share(team.id, 30))
    equal(err.response_code, 409, "a second share of the same group")
    top.unshare(team.id)
    equal(alice.groups.get(w.groups["top"]).shared_with_groups, [], "shared_with_groups after unshare")
    err = refusal(GitlabGetError, lambda: w.gl("carol").groups.get(w.groups["leaf"]))
    equal(err.response_code, 404, "carol after unshare")
    err = refusal(GitlabDeleteError, lambda: top.unshare(team.id))
    equal((err.response_code, err.error_message), (404, "404 Group Link Not Found"), "second unshare")
    w.groups["team"] = team.id


@scenario("share_and_unshare")
def transfer(w):
    gl = w.gl("alice")
    leaf = gl.groups.get(w.groups["leaf"])
    leaf.transfer(group_id=w.groups["team"])
    moved = gl.groups.get(w.groups["leaf"])
    equal((moved.full_path, moved.parent_id), (f"py-team-{RUN}/leaf-{RUN}", w.groups["team"]), "moved leaf")
    err = refusal(gitlab.exceptions.GitlabGroupTransferError, lambda: moved.transfer(group_id=w.groups["team"]))
    equal(
        (err.response_code, err.error_message),
        (400, "Transfer failed: Group is already associated to the parent group."),
        "transfer to the same parent",
    )
    moved.transfer()  # to the top level
    root_level = gl.groups.get(w.groups["leaf"])
    equal((root_level.full_path, root_level.parent_id), (f"leaf-{RUN}", None), "leaf at the top level")
    w.groups["moved_leaf"] = root_level.id


@scenario("transfer")
def delete_and_restore(w):
    gl = w.gl("alice")
    group = gl.groups.get(w.groups["moved_leaf"])
    group.delete()
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    equal(gl.groups.get(group.id).marked_for_deletion_on, today, "marked_for_deletion_on")
    err = refusal(GitlabDeleteError, group.delete)
    equal((err.response_code, err.error_message), (400, "Group has been already marked for deletion"), "again")
    # python-gitlab 3.12 has no Group.restore (4.x added it): the raw call, as its users write it.
    restored = gl.http_post(f"/groups/{group.id}/restore")
    equal((restored["id"], restored["marked_for_deletion_on"]), (group.id, None), "restore answer")
    equal(gl.groups.get(group.id).marked_for_deletion_on, None, "re-read after restore")
    err = refusal(gitlab.exceptions.GitlabHttpError, lambda: gl.http_post(f"/groups/{group.id}/restore"))
    equal((err.response_code, err.error_message), (400, "Group has not been marked for deletion"), "restore twice")


@scenario("create_top_and_subgroup")
def push_rules(w):
    group = w.gl("alice").groups.get(w.groups["top"], lazy=True)
    made = group.pushrules.create({"commit_message_regex": "^(feat|fix): ", "max_file_size": 50})
    equal((made.commit_message_regex, made.max_file_size), ("^(feat|fix): ", 50), "created rule")
    rule = group.pushrules.get()
    rule.deny_delete_tag = True
    rule.max_file_size = 100
    rule.save()
    again = group.pushrules.get()
    equal(
        (again.deny_delete_tag, again.max_file_size, again.commit_message_regex),
        (True, 100, "^(feat|fix): "),
        "rule after save",
    )
    err = refusal(GitlabCreateError, lambda: group.pushrules.create({"deny_delete_tag": True}))
    equal((err.response_code, err.error_message), (422, "Group push rule exists, try updating"), "second create")
    err = refusal(
        gitlab.exceptions.GitlabUpdateError, lambda: group.pushrules.update(new_data={"branch_name_regex": "(?=x)"})
    )
    equal(err.response_code, 400, "an invalid RE2 regex")
    again.delete()
    err = refusal(GitlabGetError, group.pushrules.get)
    equal((err.response_code, err.error_message), (404, "404 Not Found"), "deleted rule")


@scenario("create_top_and_subgroup")
def remove_subgroup_permanently(w):
    gl = w.gl("alice")
    doomed = gl.groups.create({"name": "Doomed", "path": "doomed", "parent_id": w.groups["top"]})
    doomed.delete()
    equal(gl.groups.get(doomed.id).marked_for_deletion_on is not None, True, "marked")
    doomed.delete(permanently_remove=True, full_path=f"py-top-{RUN}/doomed")

    def gone():
        try:
            gl.groups.get(doomed.id)
        except GitlabGetError as err:
            return err.response_code == 404
        return False

    eventually(gone, "the permanently removed subgroup")


@scenario("create_top_and_subgroup")
def namespaces(w):
    gl, alice = w.gl("alice"), w.users["alice"]
    # The personal namespace comes from auth's UserCreated event: it may reach groups a moment later.
    mine = eventually(
        lambda: [n for n in gl.namespaces.list(get_all=True) if n.kind == "user"],
        "alice's personal namespace",
    )
    equal([n.path for n in mine], [alice["username"]], "personal namespace")
    found = gl.namespaces.list(search=f"py-top-{RUN}")
    equal([(n.id, n.kind, n.full_path) for n in found], [(w.groups["top"], "group", f"py-top-{RUN}")], "search")
    equal(gl.namespaces.get(w.groups["sub"]).full_path, f"py-top-{RUN}/sub", "get by id")
    equal(gl.namespaces.get(f"py-top-{RUN}/sub").id, w.groups["sub"], "get by path")
    err = refusal(GitlabGetError, lambda: w.gl("bob").namespaces.get(w.groups["top"]))
    equal((err.response_code, err.error_message), (404, "404 Namespace Not Found"), "someone else's")


@scenario("create_top_and_subgroup")
def errors(w):
    # Someone else's private group: 404, as if it did not exist.
    err = refusal(GitlabGetError, lambda: w.gl("bob").groups.get(w.groups["sub"]))
    equal((err.response_code, err.error_message), (404, "404 Group Not Found"), "someone else's private group")
    err = refusal(GitlabGetError, lambda: w.gl("bob").groups.get(f"py-top-{RUN}/sub"))
    equal(err.response_code, 404, "the same by path")
    # A taken path: 400 with GitLab's message.
    taken = {"name": "Again", "path": f"py-top-{RUN}"}
    err = refusal(GitlabCreateError, lambda: w.gl("bob").groups.create(taken))
    equal(err.response_code, 400, "a taken path")
    equal(err.error_message, 'Failed to save group {:path=>["has already been taken"]}', "taken path message")
    # A bad token: 401, whatever the call.
    bad = client("glpat-" + secrets.token_urlsafe(20))
    err = refusal(GitlabAuthenticationError, lambda: bad.groups.list())
    equal((err.response_code, err.error_message), (401, "401 Unauthorized"), "a bad token")
    err = refusal(GitlabAuthenticationError, lambda: bad.groups.get(w.groups["top"]))
    equal(err.response_code, 401, "a bad token on a group")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
