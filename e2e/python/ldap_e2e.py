#!/usr/bin/python3
"""LDAP group links and group sync driven by python-gitlab (Debian's python3-gitlab, unchanged).

Usage: CANOPY_URL=... CANOPY_ROOT_TOKEN=... CANOPY_LDAP_PEOPLE='[{"uid": ..., "password": ..., "dn": ...}]'
CANOPY_LDAP_CN=<directory group cn> CANOPY_LDAP_GROUP_DN=<its DN> CANOPY_LDAP_URL=ldap://...
CANOPY_LDAP_ADMIN_DN=... CANOPY_LDAP_ADMIN_PASSWORD=... /usr/bin/python3 ldap_e2e.py [scenario ...]

People sign in with their directory password (the OAuth password grant), an owner links the directory
group, `group.ldap_sync()` brings its people in with the link's access, and one who leaves the
directory group (changed with ldapmodify, as a directory administrator would) leaves on the next sync.
Prints one JSON line, as groups_e2e.py does.
"""
import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from scenario_kit import RUN, PROPAGATION_S, Failure, URL, equal, eventually, run, scenario

import gitlab

PEOPLE = json.loads(os.environ.get("CANOPY_LDAP_PEOPLE", "[]"))
CN = os.environ.get("CANOPY_LDAP_CN", "")
DEVELOPER, OWNER = 30, 50


def password_grant(username, password):
    """POST /oauth/token (grant_type=password): the access token of the person's first sign-in."""
    form = urllib.parse.urlencode({"grant_type": "password", "username": username, "password": password})
    with urllib.request.urlopen(f"{URL}/oauth/token", data=form.encode(), timeout=20) as res:
        return json.load(res)["access_token"]


def leave_directory_group(dn):
    ldif = f"dn: {os.environ['CANOPY_LDAP_GROUP_DN']}\nchangetype: modify\ndelete: member\nmember: {dn}\n"
    subprocess.run(
        ["ldapmodify", "-x", "-H", os.environ["CANOPY_LDAP_URL"], "-D", os.environ["CANOPY_LDAP_ADMIN_DN"],
         "-w", os.environ["CANOPY_LDAP_ADMIN_PASSWORD"]],
        input=ldif.encode(), check=True, capture_output=True,
    )


def synced(group, expected):
    """Asks for syncs (a request while one runs queues nothing, as in GitLab) until the members are expected."""
    deadline = time.monotonic() + PROPAGATION_S
    while True:
        group.ldap_sync()
        members = {m.id: m.access_level for m in group.members.list(get_all=True)}
        if members == expected:
            return
        if time.monotonic() > deadline:
            raise Failure(f"members after ldap_sync: expected {expected!r}, got {members!r}")
        time.sleep(0.25)


@scenario()
def sign_in_with_directory_password(w):
    for person in PEOPLE:
        gl = gitlab.Gitlab(URL, oauth_token=password_grant(person["uid"], person["password"]), timeout=20)
        gl.auth()
        equal(gl.user.username, person["uid"], "the user the first sign-in made")
        w.users[person["uid"]] = {"id": gl.user.id, "dn": person["dn"], "gl": gl}


@scenario("sign_in_with_directory_password")
def owner_links_and_syncs(w):
    owner = w.new_user("ldap-owner")
    group = owner["gl"].groups.create({"name": f"Py LDAP {RUN}", "path": f"py-ldap-{RUN}"})
    link = group.ldap_group_links.create({"cn": CN, "group_access": DEVELOPER, "provider": "ldapmain"})
    equal((link.cn, link.group_access, link.provider), (CN, DEVELOPER, "ldapmain"), "the link made")
    listed = [(l.cn, l.group_access, l.provider) for l in group.ldap_group_links.list()]
    equal(listed, [(CN, DEVELOPER, "ldapmain")], "the links listed")
    expected = {owner["id"]: OWNER, **{w.users[p["uid"]]["id"]: DEVELOPER for p in PEOPLE}}
    synced(group, expected)
    # The members see the group they joined through the directory.
    first = w.users[PEOPLE[0]["uid"]]["gl"]
    equal(eventually(lambda: first.groups.get(group.id).id, "the group as a member"), group.id, "member's view")
    w.groups["ldap"] = group
    w.groups["expected"] = expected


@scenario("owner_links_and_syncs")
def leaver_leaves_on_next_sync(w):
    group, expected = w.groups["ldap"], dict(w.groups["expected"])
    leaver = PEOPLE[-1]
    leave_directory_group(leaver["dn"])
    del expected[w.users[leaver["uid"]]["id"]]
    synced(group, expected)


@scenario("leaver_leaves_on_next_sync")
def unlink(w):
    group = w.groups["ldap"]
    group.ldap_group_links.list()[0].delete()
    err = None
    try:
        group.ldap_group_links.list()
    except gitlab.exceptions.GitlabListError as e:
        err = e
    equal((err and err.response_code, err and err.error_message), (404, "No linked LDAP groups found"), "no links")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
