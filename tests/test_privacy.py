"""Profiles on a shared server (answering for other machines; run on PostgreSQL too): each opens only with its
own secret, as a capability link, its cookie or `?key=`; nobody lists them, and a wrong key, no key or an unknown
name are refused alike, for reads, writes and feed-like routes; a rotated secret stops the old one."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.personal.access import hash_secret
from confnav.store import open_store
from confnav.web.access import KEY_COOKIE, PROFILE_COOKIE, profile_access
from confnav.web.app import create_app
from tests.backends import Location, clone

PAPER = "Ua6zuk0WRH"
HOST = "http://papers.lab.example"


@pytest.fixture(scope="module")
def shared_db(sparse_template_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    return clone(sparse_template_db, tmp_path_factory.mktemp("privacy"))


def _served(location: Location, **options: object) -> FastAPI:
    """The app as `serve --host 0.0.0.0` builds it, plus a route standing for a profile's feed."""
    app = create_app(location, allowed_hosts=None, **options)  # type: ignore[arg-type]

    @app.get("/test-feed/{profile}")
    def feed(request: Request, profile: str) -> dict[str, str]:
        return {"profile": profile_access(request, profile)}

    return app


@pytest.fixture(scope="module")
def app(shared_db: Location) -> FastAPI:
    return _served(shared_db)


@pytest.fixture
def stranger(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url=HOST) as client:
        yield client


def _create(app: FastAPI, name: str) -> tuple[str, TestClient]:
    """A new profile's secret, and the browser that created it (holding its cookies)."""
    owner = TestClient(app, base_url=HOST)
    made = owner.post("/api/profiles", json={"name": name})
    assert made.status_code == 201, made.text
    assert made.json()["link"] == f"/for-you?profile={name}&key={made.json()['secret']}"
    return made.json()["secret"], owner


READS = ["/api/profiles/{n}", "/api/profiles/{n}/marks", "/api/profiles/{n}/recommend", "/test-feed/{n}"]


def _refusals(client: TestClient, name: str, **params: str) -> list[tuple[int, str]]:
    """What each read and write of profile `name` answers, the name taken out of the message."""
    answers = [client.get(path.format(n=name), params={"venue": "iclr2021", **params}) for path in READS]
    answers.append(client.post(f"/api/profiles/{name}/marks", params=params, json={"id": PAPER, "mark": "like"}))
    answers.append(client.delete(f"/api/profiles/{name}/marks/{PAPER}", params=params))
    answers.append(client.post(f"/api/profiles/{name}/secret", params=params, json={}))
    quoted = (f"'{name}'", f"&#39;{name}&#39;")
    return [(a.status_code, a.text.replace(quoted[0], "NAME").replace(quoted[1], "NAME")) for a in answers]


def test_no_listing_and_refusals_say_nothing_of_existence(app: FastAPI, stranger: TestClient) -> None:
    secret, owner = _create(app, "alice")
    assert stranger.get("/api/profiles").status_code == 404
    assert owner.get("/api/profiles").status_code == 404  # not even for a profile's owner
    missing = _refusals(stranger, "nobody")
    assert {status for status, _ in missing} == {404}, missing
    assert _refusals(stranger, "alice") == missing  # no key: as if it did not exist
    assert _refusals(stranger, "alice", key="x" * 43) == missing  # a wrong key
    assert _refusals(stranger, "alice", key=secret[:-1]) == missing
    page = stranger.get("/venues/iclr2021/for-you", params={"profile": "alice"})
    assert page.status_code == 404 and "opens with this key" in page.text
    assert stranger.get("/for-you", params={"profile": "alice", "key": "wrong"}).status_code == 404
    assert stranger.get("/venues/iclr2021/for-you").status_code == 200  # no profile chosen: how to get one
    with open_store(app.state.confnav.location) as store:
        assert store.profile_marks("alice") == []  # the refused write wrote nothing


def test_the_secret_opens_the_profile_by_key_cookie_and_link(app: FastAPI, stranger: TestClient) -> None:
    secret, owner = _create(app, "bob")
    cookies = owner.cookies
    assert cookies[KEY_COOKIE] == secret and cookies[PROFILE_COOKIE] == "bob"
    assert owner.post("/api/profiles/bob/marks", json={"id": PAPER, "mark": "like"}).status_code == 201
    assert owner.get("/api/profiles/bob/recommend", params={"venue": "iclr2021"}).json()["hits"]
    assert stranger.get("/test-feed/bob", params={"key": secret}).json() == {"profile": "bob"}  # a feed URL
    assert stranger.get("/api/profiles/bob/marks", params={"key": secret}).json()["marks"][0]["id"] == PAPER
    with open_store(app.state.confnav.location) as store:
        assert store.profile_key("bob") == hash_secret(secret) != secret  # only the hash is kept

    link = stranger.get("/for-you", params={"profile": "bob", "key": secret}, follow_redirects=False)
    assert link.status_code == 303 and link.headers["location"] == "/for-you"  # the key leaves the address
    set_cookies = link.headers.get_list("set-cookie")
    key_cookie = next(c for c in set_cookies if c.startswith(f"{KEY_COOKIE}="))
    assert re.search(r"(?i)httponly", key_cookie) and re.search(r"(?i)samesite=strict", key_cookie)
    assert "Path=/" in key_cookie and "secure" not in key_cookie.lower()  # plain HTTP here: Secure only on HTTPS
    assert all(re.search(r"(?i)httponly.*samesite=strict|samesite=strict.*httponly", c) for c in set_cookies)
    page = stranger.get("/venues/iclr2021/for-you")  # the cookies now open it
    assert page.status_code == 200 and "Close to your" in page.text and 'data-profile="bob"' in page.text

    other_secret, other = _create(app, "carol")  # another profile's key does not open this one
    assert other.get("/api/profiles/bob").status_code == 404
    assert other.get("/api/profiles/bob", params={"key": other_secret}).status_code == 404


def test_a_rotated_secret_stops_the_old_one(app: FastAPI, shared_db: Location) -> None:
    old, owner = _create(app, "dana")
    assert owner.post("/api/profiles/dana/secret", json={"key": "wrong"}).status_code == 404
    assert owner.get("/test-feed/dana", params={"key": old}).status_code == 200  # a wrong try changed nothing
    rotated = owner.post("/api/profiles/dana/secret", json={"key": old})
    assert rotated.status_code == 200
    new = rotated.json()["secret"]
    assert new != old and owner.cookies[KEY_COOKIE] == new
    assert owner.get("/test-feed/dana", params={"key": old}).status_code == 404
    assert owner.get("/test-feed/dana", params={"key": new}).status_code == 200

    shell = CliRunner().invoke(cli, ["profile", "secret", "dana", "--rotate", "--db", str(shared_db)])
    assert shell.exit_code == 0, shell.output
    from_shell = shell.stdout.strip()
    assert owner.get("/test-feed/dana", params={"key": new}).status_code == 404
    assert owner.get("/test-feed/dana", params={"key": from_shell}).status_code == 200
    revoked = CliRunner().invoke(cli, ["profile", "secret", "dana", "--revoke", "--db", str(shared_db)])
    assert revoked.exit_code == 0, revoked.output
    assert owner.get("/test-feed/dana", params={"key": from_shell}).status_code == 404


def test_a_profile_without_a_secret_stays_closed_and_names_are_not_taken_twice(
    app: FastAPI, stranger: TestClient, shared_db: Location
) -> None:
    with open_store(shared_db) as store:
        store.mark_paper("me", PAPER, "like")  # made from a shell: no secret
    assert _refusals(stranger, "me") == _refusals(stranger, "nobody")
    assert stranger.get("/venues/iclr2021/for-you", params={"profile": "me"}).status_code == 404
    assert stranger.post("/api/profiles", json={"name": "me"}).status_code == 400
    unnamed = stranger.post("/api/profiles", json={})
    assert unnamed.status_code == 201 and unnamed.json()["name"].startswith("p-")


def test_writes_respect_the_token_and_read_only(shared_db: Location, tmp_path) -> None:  # type: ignore[no-untyped-def]
    location = clone(shared_db, tmp_path, "guarded")
    with TestClient(_served(location, token="lab-token"), base_url=HOST) as client:
        assert client.post("/api/profiles", json={"name": "eve"}).status_code == 403
        made = client.post("/api/profiles", json={"name": "eve"}, headers={"X-Confnav-Token": "lab-token"})
        secret = made.json()["secret"]
        mark = {"id": PAPER, "mark": "like"}
        assert client.post("/api/profiles/eve/marks", json=mark).status_code == 403  # the key alone is not enough
        token = {"X-Confnav-Token": "lab-token"}
        client.cookies.clear()
        assert client.post("/api/profiles/eve/marks", json=mark, headers=token).status_code == 404  # nor the token
        answer = client.post("/api/profiles/eve/marks", params={"key": secret}, json=mark, headers=token)
        assert answer.status_code == 201
    with TestClient(_served(location, read_only=True), base_url=HOST) as client:
        answer = client.post("/api/profiles/eve/marks", params={"key": secret}, json=mark)
        assert answer.status_code == 403 and "read-only" in answer.text
        assert client.get("/api/profiles/eve/marks", params={"key": secret}).json()["marks"][0]["id"] == PAPER
        assert client.get("/api/profiles/eve/marks").status_code == 404
        person = client.post("/api/profiles/eve/import", params={"key": secret}, json={"person": "~Ann_Lee1"})
        assert person.status_code == 403 and "read-only" in person.text  # refused before any service is asked


def test_a_reading_list_is_its_owners_alone(app: FastAPI, stranger: TestClient, shared_db: Location) -> None:
    """A list made from a page is its maker's, one made from a shell the default profile's: on a shared server
    nobody else lists, reads, exports, changes or takes its name; nobody makes a list without a profile."""
    secret, owner = _create(app, "lister")
    assert owner.post("/api/lists", json={"name": "lister-private"}).status_code == 201
    assert owner.post("/api/lists/lister-private/papers", json={"id": PAPER}).status_code == 201
    with open_store(shared_db) as store:
        store.create_list("from-a-shell")  # as `confnav list create`: the default profile's
    _, other = _create(app, "other-lister")
    for client in (stranger, other):
        names = {item["name"] for item in client.get("/api/lists").json()}
        assert not names & {"lister-private", "from-a-shell"}
        for name in ("lister-private", "from-a-shell"):
            for method, path, body in [
                ("get", f"/api/lists/{name}", None),
                ("get", f"/api/lists/{name}/export.bib", None),
                ("get", f"/api/export?list={name}&format=csv", None),
                ("get", f"/api/lists/{name}/recommend", None),
                ("post", f"/api/lists/{name}/papers", {"id": PAPER}),
                ("delete", f"/api/lists/{name}/papers/{PAPER}", None),
                ("delete", f"/api/lists/{name}", None),
            ]:
                answer = client.request(method, path, json=body)
                assert answer.status_code == 404 and "no reading list named" in answer.text, (method, path)
            assert client.get("/lists", params={"name": name}).status_code == 404
    taken = other.post("/api/lists", json={"name": "lister-private"})
    assert taken.status_code == 400 and "taken" in taken.text
    assert stranger.post("/api/lists", json={"name": "nobodys"}).status_code == 404
    assert 'data-default-list="to read - other-lister"' in other.get("/search").text  # each profile's own
    opened = owner.get("/api/lists/lister-private", params={"key": secret})
    assert opened.status_code == 200 and opened.json()["papers"][0]["id"] == PAPER
    assert {item["name"] for item in owner.get("/api/lists").json()} == {"lister-private"}  # by its cookie


def test_behind_a_proxy_the_server_is_shared_and_asks_the_token() -> None:
    from confnav.web.app import allowed_hosts, answers_others

    assert not answers_others(allowed_hosts("127.0.0.1"))
    assert answers_others(allowed_hosts("127.0.0.1", ["papers.example.org"]))
    assert answers_others(allowed_hosts("0.0.0.0")) and answers_others(None)
