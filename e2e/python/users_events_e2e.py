#!/usr/bin/python3
"""Events (GET /events, /users/:id/events, /projects/:id/events) driven by python-gitlab (Debian's
python3-gitlab 3.x), unchanged.

Usage: CANOPY_URL=http://127.0.0.1:8080 CANOPY_ROOT_TOKEN=glpat-... /usr/bin/python3 users_events_e2e.py
Prints one JSON line {"ok": bool, "passed": [...], "failed": {...}} (scenario_kit.py).
"""
import sys

from scenario_kit import RUN, equal, refusal, run, scenario

from gitlab.exceptions import GitlabListError

# What the scenarios share beyond users (w.facts is reported to the driving test).
MADE = {}


@scenario()
def users(w):
    w.new_user("author")
    w.new_user("joiner")
    w.new_user("stranger")


@scenario("users")
def recorded(w):
    gl = w.gl("author")
    project = gl.projects.create({"name": f"Events {RUN}", "visibility": "private"})
    MADE["project"] = project.id
    project.members.create({"user_id": w.users["joiner"]["id"], "access_level": 30})
    listed = project.events.list(get_all=True)
    equal([(e.action_name, e.author_id) for e in listed],
          [("joined", w.users["joiner"]["id"]), ("created", w.users["author"]["id"])], "project events")
    created = listed[1]
    equal((created.target_type, created.target_id, created.author_username, created.author["username"]),
          (None, None, w.users["author"]["username"], w.users["author"]["username"]), "the created event")
    own = gl.events.list(get_all=True)
    equal([(e.action_name, e.project_id) for e in own], [("created", project.id)], "the author's own events")
    joiner = gl.users.get(w.users["joiner"]["id"], lazy=True)
    equal([e.action_name for e in joiner.events.list(get_all=True)], ["joined"], "the joiner's events")


@scenario("recorded")
def filters(w):
    gl = w.gl("author")
    project = gl.projects.get(MADE["project"], lazy=True)
    equal([e.action_name for e in project.events.list(action="joined")], ["joined"], "action=joined")
    equal([e.action_name for e in project.events.list(sort="asc")], ["created", "joined"], "sort=asc")
    equal(project.events.list(target_type="issue"), [], "target_type=issue")
    equal(project.events.list(before="2000-01-01"), [], "before 2000")
    equal(len(project.events.list(after="2000-01-01")), 2, "after 2000")
    err = refusal(GitlabListError, lambda: gl.events.list(action="bogus"))
    equal((err.response_code, err.error_message), (400, "action does not have a valid value"), "a bad action")


@scenario("recorded")
def invisible_to_strangers(w):
    gl = w.gl("stranger")
    err = refusal(GitlabListError, lambda: gl.projects.get(MADE["project"], lazy=True).events.list())
    equal((err.response_code, err.error_message), (404, "404 Project Not Found"), "a private project's events")
    author = gl.users.get(w.users["author"]["id"], lazy=True)
    equal(author.events.list(), [], "the author's events in a private project")
    equal(gl.events.list(), [], "a stranger's own events")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
