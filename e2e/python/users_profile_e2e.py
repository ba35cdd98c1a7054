#!/usr/bin/python3
"""python-gitlab (Debian's python3-gitlab 3.x, unchanged) against Canopy's user profile parts:
avatars, global search of users. Events (gl.events) are not hosted yet.

Usage: CANOPY_URL=http://127.0.0.1:8080 CANOPY_ROOT_TOKEN=glpat-... /usr/bin/python3 users_profile_e2e.py [scenario ...]
"""

import base64
import io
import sys

# scenario_kit first: it reports a missing python-gitlab as a JSON line rather than a traceback.
from scenario_kit import RUN, check, equal, refusal, run, scenario

import gitlab

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@scenario()
def users(w):
    w.new_user("dora")
    w.gl("dora").auth()


@scenario("users")
def avatar_on_create(w):
    # python-gitlab sends a file attribute of users.create as multipart/form-data.
    username = f"py-avatar-{RUN}"
    user = w.root.users.create(
        {
            "username": username,
            "email": f"{username}@example.com",
            "name": f"Avatar {RUN}",
            "password": "Correct-Horse-42",
            "avatar": io.BytesIO(PNG),
        }
    )
    check(user.avatar_url and f"/uploads/-/system/user/avatar/{user.id}/" in user.avatar_url, user.avatar_url)
    shown = w.gl("dora").users.get(user.id)
    equal(shown.avatar_url, user.avatar_url, "others see the avatar_url")
    # A file that is not an image: 400 naming the avatar, nothing made.
    bad = {
        "username": f"py-badav-{RUN}",
        "email": f"py-badav-{RUN}@example.com",
        "name": "Bad",
        "password": "Correct-Horse-42",
        "avatar": io.BytesIO(b"<svg/>"),
    }
    err = refusal(gitlab.exceptions.GitlabCreateError, lambda: w.root.users.create(bad))
    equal(err.response_code, 400, "a non-image avatar")
    check("avatar" in str(err.error_message), f"the refusal names the avatar: {err.error_message}")
    equal(w.root.users.list(username=bad["username"]), [], "no user made")


@scenario("users")
def avatar_on_update(w):
    user = w.root.users.get(w.users["dora"]["id"])
    user.avatar = io.BytesIO(PNG)
    user.save()
    again = w.gl("dora").users.get(user.id)
    check(again.avatar_url and again.avatar_url.endswith(".png"), f"avatar_url {again.avatar_url}")
    w.gl("dora").auth()
    equal(w.gl("dora").user.avatar_url, again.avatar_url, "GET /user shows it")


@scenario("users")
def search_users(w):
    found = w.gl("dora").search(gitlab.const.SEARCH_SCOPE_USERS, w.users["dora"]["username"])
    equal([u["id"] for u in found], [w.users["dora"]["id"]], "gl.search users")
    equal(w.gl("dora").search(gitlab.const.SEARCH_SCOPE_ISSUES, "anything"), [], "issues: none here")
    err = refusal(gitlab.exceptions.GitlabSearchError, lambda: w.gl("dora").search("nonsense", "x"))
    equal(err.response_code, 400, "an unknown scope")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
