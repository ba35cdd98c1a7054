#!/usr/bin/python3
"""The Projects API driven by python-gitlab (Debian's python3-gitlab 3.12), unchanged, as a new user would.

Usage: CANOPY_URL=http://127.0.0.1:8080 CANOPY_ROOT_TOKEN=glpat-... /usr/bin/python3 projects_e2e.py [scenario ...]

Same contract as groups_e2e.py: runs the named scenarios (all, in order, without names), prints one JSON
line {"ok": bool, "passed": [...], "failed": {...}} and exits 1 on the first failure.
"""
import datetime
import sys

# scenario_kit first: it reports a missing python-gitlab as a JSON line rather than a traceback.
from scenario_kit import RUN, check, equal, eventually, refusal, run, scenario

import gitlab
from gitlab.exceptions import (
    GitlabCreateError,
    GitlabDeleteError,
    GitlabGetError,
    GitlabTransferProjectError,
    GitlabUpdateError,
)


def ids(items):
    return sorted(i.id for i in items)


@scenario()
def users_and_groups(w):
    for name in ("alice", "bob", "carol"):
        w.new_user(name)
    gl = w.gl("alice")
    top = gl.groups.create({"name": f"PyP Top {RUN}", "path": f"pyp-top-{RUN}", "visibility": "public"})
    sub = gl.groups.create({"name": "Sub", "path": "sub", "parent_id": top.id, "visibility": "public"})
    team = gl.groups.create({"name": f"PyP Team {RUN}", "path": f"pyp-team-{RUN}", "visibility": "private"})
    gl.groups.get(team.id, lazy=True).members.create({"user_id": w.users["carol"]["id"], "access_level": 40})
    w.groups.update(top=top.id, sub=sub.id, team=team.id)


@scenario("users_and_groups")
def create_get_update(w):
    gl, alice = w.gl("alice"), w.users["alice"]
    api = gl.projects.create({"name": "API", "namespace_id": w.groups["top"], "visibility": "public"})
    equal((api.path, api.path_with_namespace), ("api", f"pyp-top-{RUN}/api"), "path derived from the name")
    equal((api.namespace["id"], api.visibility, api.empty_repo), (w.groups["top"], "public", True), "created")
    # The group's creator is its Owner: the project's permissions say so.
    got = gl.projects.get(api.id)
    equal(got.permissions["group_access"]["access_level"], 50, "alice's access through the group")
    equal(gl.projects.get(f"pyp-top-{RUN}/api").id, api.id, "by full path")  # URL-encoded by python-gitlab
    got.description = "The API"
    got.topics = ["python", "cli"]
    got.issues_access_level = "private"
    got.save()
    again = gl.projects.get(api.id)
    equal(
        (again.description, sorted(again.topics), again.issues_access_level),
        ("The API", ["cli", "python"], "private"),
        "re-read after save",
    )
    secret = gl.projects.create({"name": "Secret", "namespace_id": w.groups["sub"], "visibility": "private"})
    internal = gl.projects.create(
        {"name": "Inside", "path": f"inside-{RUN}", "namespace_id": w.groups["sub"], "visibility": "internal"}
    )
    mine = gl.projects.create({"name": f"Mine {RUN}"})  # no namespace: alice's own
    equal(mine.path_with_namespace, f"{alice['username']}/mine-{RUN}", "personal project")
    equal(mine.namespace["kind"], "user", "personal namespace kind")
    shared = gl.projects.create({"name": "Shared", "namespace_id": w.groups["team"]})
    equal(shared.visibility, "private", "the default visibility under a private group")
    w.projects = {"api": api.id, "secret": secret.id, "internal": internal.id, "mine": mine.id, "shared": shared.id}
    # A taken path: GitLab's message, keyed by attribute.
    err = refusal(GitlabCreateError, lambda: gl.projects.create({"name": "API", "namespace_id": w.groups["top"]}))
    equal(err.response_code, 400, "a taken name")
    check("has already been taken" in str(err.error_message), f"message {err.error_message}")
    # A project may not be more visible than its group.
    err = refusal(
        GitlabCreateError,
        lambda: gl.projects.create({"name": "Loud", "namespace_id": w.groups["team"], "visibility": "public"}),
    )
    equal(err.response_code, 400, "a public project in a private group")
    # bob may not create in alice's group.
    err = refusal(
        GitlabCreateError, lambda: w.gl("bob").projects.create({"name": "X", "namespace_id": w.groups["top"]})
    )
    equal((err.response_code, err.error_message), (400, {"namespace": ["is not valid"]}), "bob in alice's group")


@scenario("create_get_update")
def second_user_sees_what_he_may(w):
    bob, p = w.gl("bob"), w.projects
    equal(bob.projects.get(p["api"]).id, p["api"], "bob reads the public project")
    equal(bob.projects.get(p["internal"]).id, p["internal"], "bob reads the internal project")
    for name in ("secret", "mine", "shared"):
        err = refusal(GitlabGetError, lambda: bob.projects.get(p[name]))
        equal((err.response_code, err.error_message), (404, "404 Project Not Found"), f"bob and {name}")
    seen = {x.id for x in bob.projects.list(search=RUN, get_all=True)}
    check(p["internal"] in seen and not {p["secret"], p["mine"], p["shared"]} & seen, f"bob's list {seen}")
    everyone = {x.id for x in bob.projects.list(get_all=True)}
    check({p["api"], p["internal"]} <= everyone, "bob lists the public and internal projects")
    check(not {p["secret"], p["mine"], p["shared"]} & everyone, "bob lists none of the private ones")
    equal(bob.projects.list(owned=True), [], "bob owns nothing")
    equal(bob.projects.list(membership=True), [], "bob is a member of nothing")
    top = bob.groups.get(w.groups["top"], lazy=True)
    equal(ids(top.projects.list(include_subgroups=True)), sorted([p["api"], p["internal"]]), "bob's group list")
    anonymous = gitlab.Gitlab(w.root.url, timeout=20)
    anonymous_top = anonymous.groups.get(w.groups["top"], lazy=True)
    equal(ids(anonymous_top.projects.list(include_subgroups=True)), [p["api"]], "anonymous: the public project")
    err = refusal(GitlabGetError, lambda: anonymous.projects.get(p["internal"]))
    equal(err.response_code, 404, "anonymous and the internal project")
    # Visible but not allowed: 403.
    api = bob.projects.get(p["api"])
    api.description = "bob was here"
    err = refusal(GitlabUpdateError, api.save)
    equal((err.response_code, err.error_message), (403, "403 Forbidden"), "bob edits alice's public project")
    # He reads the public project's members, not the private one's, nor the private team's projects.
    equal([m.username for m in api.members_all.list()], [w.users["alice"]["username"]], "public members")
    err = refusal(gitlab.exceptions.GitlabListError, bob.projects.get(p["secret"], lazy=True).members.list)
    equal((err.response_code, err.error_message), (404, "404 Project Not Found"), "a private project's members")
    team = bob.groups.get(w.groups["team"], lazy=True)
    for listing in (team.projects.list, team.shared_projects.list):
        err = refusal(gitlab.exceptions.GitlabListError, listing)
        equal((err.response_code, err.error_message), (404, "404 Group Not Found"), "the private team's lists")


@scenario("create_get_update")
def stars_and_archive(w):
    gl, bob, p = w.gl("alice"), w.gl("bob"), w.projects
    api = bob.projects.get(p["api"])
    api.star()
    equal(api.star_count, 1, "star_count after star")
    err = refusal(GitlabCreateError, api.star)
    equal(err.response_code, 304, "starring twice")
    equal(ids(bob.projects.list(starred=True)), [p["api"]], "bob's starred projects")
    api.unstar()
    equal(bob.projects.get(p["api"]).star_count, 0, "star_count after unstar")
    equal(bob.projects.list(starred=True), [], "none starred")
    internal = gl.projects.get(p["internal"])
    internal.archive()
    equal(gl.projects.get(p["internal"]).archived, True, "archived")
    err = refusal(GitlabCreateError, bob.projects.get(p["api"]).archive)
    equal(err.response_code, 403, "bob archives alice's project")
    top = gl.groups.get(w.groups["top"], lazy=True)
    equal(ids(top.projects.list(include_subgroups=True, archived=True)), [p["internal"]], "archived=true")
    check(p["internal"] not in ids(top.projects.list(include_subgroups=True, archived=False)), "archived=false")
    check(p["internal"] in ids(gl.projects.list(archived=True, search=RUN)), "gl.projects archived=true")
    internal.unarchive()
    equal(gl.projects.get(p["internal"]).archived, False, "unarchived")


@scenario("create_get_update")
def project_lists_with_filters(w):
    gl, p = w.gl("alice"), w.projects
    mine = [p["api"], p["secret"], p["internal"], p["mine"], p["shared"]]
    equal(ids(gl.projects.list(owned=True, get_all=True)), sorted(mine), "alice's owned projects")
    equal(ids(gl.projects.list(membership=True, get_all=True)), sorted(mine), "membership")
    private = sorted([p["secret"], p["mine"], p["shared"]])
    equal(ids(gl.projects.list(visibility="private", owned=True)), private, "visibility=private")
    by_name = gl.projects.list(owned=True, order_by="name", sort="asc", get_all=True)
    names = [x.name for x in by_name]
    equal(names, sorted(names), "order_by=name")
    by_id = gl.projects.list(owned=True, order_by="id", sort="desc", per_page=2, iterator=True)
    equal((by_id.total, [x.id for x in by_id]), (5, sorted(mine, reverse=True)), "offset pages, id desc")
    keyset = gl.projects.list(owned=True, pagination="keyset", order_by="id", sort="asc", per_page=2, iterator=True)
    equal([x.id for x in keyset], sorted(mine), "keyset pages")
    simple = gl.projects.list(owned=True, simple=True, search="api")
    equal([x.id for x in simple], [p["api"]], "search")
    check("permissions" not in simple[0].attributes and "namespace" in simple[0].attributes, "simple entity")
    equal(ids(gl.projects.list(topic="python", owned=True)), [p["api"]], "topic")
    equal(ids(gl.projects.list(min_access_level=50, search=RUN)), [p["internal"], p["mine"]], "min_access_level")


@scenario("create_get_update")
def group_projects_with_filters(w):
    gl, p = w.gl("alice"), w.projects
    top = gl.groups.get(w.groups["top"], lazy=True)
    equal(ids(top.projects.list()), [p["api"]], "the group's own projects")
    tree = [p["api"], p["secret"], p["internal"]]
    equal(ids(top.projects.list(include_subgroups=True)), sorted(tree), "include_subgroups")
    equal(ids(top.projects.list(include_subgroups=True, visibility="private")), [p["secret"]], "visibility")
    by_path = top.projects.list(include_subgroups=True, order_by="path", sort="desc")
    paths = [x.path for x in by_path]
    equal(paths, sorted(paths, reverse=True), "order_by=path desc")
    equal(ids(top.projects.list(include_subgroups=True, search="secret")), [p["secret"]], "search")
    simple = top.projects.list(include_subgroups=True, simple=True, owned=True)
    equal(ids(simple), sorted(tree), "simple, owned")
    check("permissions" not in simple[0].attributes, "simple entity")
    equal(ids(top.projects.list(include_subgroups=True, starred=True)), [], "starred")
    equal(ids(top.projects.list(include_subgroups=True, min_access_level=50)), sorted(tree), "min_access_level")
    equal(ids(top.projects.list(include_subgroups=True, topic="python,cli")), [p["api"]], "topics")
    equal(ids(top.projects.list(include_subgroups=True, topic="python,go")), [], "every topic required")
    pages = top.projects.list(include_subgroups=True, per_page=1, iterator=True, order_by="id", sort="asc")
    equal(([x.id for x in pages], pages.total), (sorted(tree), 3), "paged one by one")


@scenario("create_get_update")
def members(w):
    gl, bob, carol = w.gl("alice"), w.users["bob"], w.users["carol"]
    project = gl.projects.get(w.projects["secret"], lazy=True)
    made = project.members.create({"user_id": bob["id"], "access_level": gitlab.const.DEVELOPER_ACCESS})
    equal((made.username, made.access_level), (bob["username"], 30), "added member")
    equal(w.gl("bob").projects.get(w.projects["secret"]).id, w.projects["secret"], "bob now reads it")
    err = refusal(GitlabCreateError, lambda: project.members.create({"user_id": bob["id"], "access_level": 30}))
    equal((err.response_code, err.error_message), (409, "Member already exists"), "a second add")
    member = project.members.get(bob["id"])
    member.access_level = gitlab.const.MAINTAINER_ACCESS
    member.expires_at = "2999-01-31"
    member.save()
    equal(
        (project.members.get(bob["id"]).access_level, project.members.get(bob["id"]).expires_at),
        (40, "2999-01-31"),
        "after save",
    )
    equal([m.username for m in project.members.list()], [bob["username"]], "direct members")
    everyone = {m.username: m.access_level for m in project.members_all.list(get_all=True)}
    equal(everyone, {w.users["alice"]["username"]: 50, bob["username"]: 40}, "members_all (alice from the group)")
    equal(project.members_all.get(w.users["alice"]["id"]).access_level, 50, "members_all.get")
    # bob, a Maintainer now, may not grant Owner.
    as_bob = w.gl("bob").projects.get(w.projects["secret"], lazy=True)
    err = refusal(GitlabCreateError, lambda: as_bob.members.create({"user_id": carol["id"], "access_level": 50}))
    equal(err.response_code, 403, "Owner level from a Maintainer")
    project.members.delete(bob["id"])
    err = refusal(GitlabGetError, lambda: project.members.get(bob["id"]))
    equal((err.response_code, err.error_message), (404, "404 Not found"), "removed member")
    err = refusal(GitlabGetError, lambda: w.gl("bob").projects.get(w.projects["secret"]))
    equal(err.response_code, 404, "bob after removal")


@scenario("create_get_update")
def share_and_unshare(w):
    gl, carol, p = w.gl("alice"), w.gl("carol"), w.projects
    project = gl.projects.get(p["secret"])
    project.share(w.groups["team"], gitlab.const.REPORTER_ACCESS, expires_at="2999-12-31")
    again = gl.projects.get(p["secret"])
    equal(
        [(s["group_id"], s["group_access_level"], s["expires_at"]) for s in again.shared_with_groups],
        [(w.groups["team"], 20, "2999-12-31")],
        "shared_with_groups",
    )
    # carol, a Maintainer of the team, reaches the project at the share's level (capped at 20).
    equal(carol.projects.get(p["secret"]).permissions["group_access"], None, "no group access of her own")
    everyone = {m.id: m.access_level for m in project.members_all.list(get_all=True)}
    equal(everyone.get(w.users["carol"]["id"]), 20, "carol through the share")
    team = gl.groups.get(w.groups["team"], lazy=True)
    equal(ids(team.shared_projects.list()), [p["secret"]], "the team's shared projects")
    equal(ids(team.projects.list()), sorted([p["shared"], p["secret"]]), "with_shared by default")
    equal(ids(team.projects.list(with_shared=False)), [p["shared"]], "with_shared=false")
    err = refusal(GitlabCreateError, lambda: project.share(w.groups["team"], 30))
    equal((err.response_code, err.error_message), (409, "Group already shared with this group"), "twice")
    project.unshare(w.groups["team"])
    equal(team.shared_projects.list(), [], "no shared projects after unshare")
    err = refusal(GitlabGetError, lambda: carol.projects.get(p["secret"]))
    equal(err.response_code, 404, "carol after unshare")
    err = refusal(GitlabDeleteError, lambda: project.unshare(w.groups["team"]))
    equal((err.response_code, err.error_message), (404, "404 Group Link Not Found"), "second unshare")


@scenario("share_and_unshare", "stars_and_archive", "project_lists_with_filters", "group_projects_with_filters")
def transfer_project(w):
    p = w.projects
    team = w.root.groups.get(w.groups["team"], lazy=True)
    team.transfer_project(p["internal"])
    moved = w.gl("alice").projects.get(p["internal"])
    equal(
        (moved.namespace["id"], moved.path_with_namespace, moved.visibility),
        (w.groups["team"], f"pyp-team-{RUN}/inside-{RUN}", "private"),
        "moved into the private team, its visibility lowered",
    )
    err = refusal(GitlabTransferProjectError, lambda: team.transfer_project(p["internal"]))
    equal(err.response_code, 400, "into the same group")
    check("Project is already in this namespace." in str(err.error_message), f"message {err.error_message}")
    as_alice = w.gl("alice").groups.get(w.groups["team"], lazy=True)
    err = refusal(GitlabTransferProjectError, lambda: as_alice.transfer_project(p["api"]))
    equal(err.response_code, 403, "not an administrator")
    err = refusal(GitlabGetError, lambda: w.gl("bob").projects.get(p["internal"]))
    equal(err.response_code, 404, "bob no longer sees the moved project")


@scenario("transfer_project")
def delete(w):
    gl, p = w.gl("alice"), w.projects
    err = refusal(GitlabDeleteError, lambda: w.gl("bob").projects.delete(p["api"]))
    equal(err.response_code, 403, "bob deletes alice's public project")
    gl.projects.delete(p["mine"])
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    equal(gl.projects.get(p["mine"]).marked_for_deletion_on, today, "marked for deletion (ultimate)")
    err = refusal(GitlabDeleteError, lambda: gl.projects.delete(p["mine"]))
    equal(
        (err.response_code, err.error_message), (400, "Project has been already marked for deletion"), "twice"
    )
    # A group marked for deletion hides its projects from every list.
    gl.groups.delete(w.groups["sub"])
    eventually(lambda: p["secret"] not in ids(gl.projects.list(owned=True, get_all=True)), "the hidden project")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
