"""Class mode in real Chromium, with the cookies a browser keeps: a lecturer on a laptop, the room view on a
1920x1080 projector and five phones at 390 px (light and dark) run a learning-path question and the
lecturer's own question with a right answer, end to end: start (a form post), join by the link, answer, watch
the answers arrive live, reveal, and each phone sees its own answer, the verdict, the explanation and the
figure. No address bar ever holds a secret, and the old `me=` links answer for no one.

With $SHOTS_DIR set, the room view and a phone after each reveal (light and dark) are saved there."""

import os
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from explorer import content, i18n
from explorer import learning_path as lp
from tests.e2e.conftest import TIMEOUT_MS, assert_no_exception, shoot

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1920, "height": 1080}
WIDTH = "() => document.documentElement.scrollWidth"
MARKDOWN_CHOICE = "**bold** and [a link](http://example.com)"
COLOR_CHOICE = ":red[red text] plain"


def _shot(page, name: str, tmp_path: Path) -> None:
    """The viewport as it is (the room view is judged at projector size, not as a tall page)."""
    target = Path(os.environ["SHOTS_DIR"]) if os.environ.get("SHOTS_DIR") else tmp_path
    target.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target / name))


def _context(browser, viewport, theme="light"):
    context = browser.new_context(viewport=viewport, color_scheme=theme, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    return context, context.new_page()


def _no_secret_in(url: str) -> None:
    query = parse_qs(urlsplit(url).query)
    assert set(query) <= {"class", "lang", "view", "embed"}, url


def _say(section: str, lang: str, **values) -> str:
    return content.text("class", section, lang=lang, **values)


def _answer(phone, index: int, lang: str = "en") -> None:
    phone.wait_for_selector(IDLE)
    phone.locator('[data-testid="stRadioOption"]').nth(index).click()
    expect(phone.locator('[data-testid="stRadio"]').get_by_role("radio").nth(index)).to_be_checked()
    phone.get_by_role("button", name=_say("submit", lang)).click()
    expect(phone.get_by_text(_say("received", lang)[:12]).first).to_be_visible()


def test_a_lecturer_a_projector_and_five_phones_run_two_questions(browser, app_url, tmp_path):
    host_context, host = _context(browser, {"width": 1440, "height": 900})
    host.goto(f"{app_url}/class")
    host.get_by_role("button", name="Start a class").click()  # a form post: the secret comes back as a cookie
    expect(host.get_by_text("Join with code").first).to_be_visible()
    _no_secret_in(host.url)
    code = parse_qs(urlsplit(host.url).query)["class"][0]
    assert f"explorer_host_{code}" in {c["name"] for c in host_context.cookies() if c["httpOnly"]}
    assert "explorer_host" not in host.evaluate("document.cookie")  # no script on the page can read it
    join_link = host.locator('[data-testid="stCode"] code').first.inner_text().strip()
    assert join_link.endswith(f"/class/join?class={code}&lang=en")
    join_link = app_url + join_link[join_link.index("/class/join") :]

    room_context, room = _context(browser, PROJECTOR)
    room.goto(f"{app_url}/class?class={code}&view=room&embed=true")
    expect(room.get_by_text(code, exact=True)).to_be_visible()
    expect(room.locator('[data-testid="stImage"] img')).to_have_count(1)  # the QR code of the join link

    host.wait_for_selector(IDLE)
    host.get_by_role("button", name="Ask the class").click()  # the path's first question, the default
    expect(host.get_by_text("0 answers from 0 joined.").first).to_be_visible()

    phones, langs = [], ["en", "en", "en", "en", "zh"]  # the last phone reads Chinese
    for i, lang in enumerate(langs):
        context, phone = _context(browser, PHONE, "dark" if i % 2 else "light")
        phone.goto(join_link.replace("lang=en", f"lang={lang}"))  # the join route sets the device's cookie
        with i18n.using(lang):
            expect(phone.get_by_text(lp.prompt(1)[:20]).first).to_be_visible()
        _no_secret_in(phone.url)
        assert "explorer_device" not in phone.evaluate("document.cookie")
        right_choice = lp.step(1).answer  # phones 1 and 3 pick the two other choices, whichever is right
        _answer(
            phone, [right_choice, (right_choice + 1) % 3, right_choice, (right_choice + 2) % 3, right_choice][i], lang
        )
        assert phone.evaluate(WIDTH) <= PHONE["width"]  # no sideways scroll on a phone
        phones.append((context, phone))

    phones[0][1].reload()  # the same device after a reload: still in, its answer kept (the cookie)
    expect(phones[0][1].get_by_text("Your answer: ").first).to_be_visible()
    stranger_context, stranger = _context(browser, PHONE)
    stranger.goto(f"{app_url}/class?class={code}&me=0123456789abcdef01234567")  # an old-style link
    expect(stranger.get_by_role("link", name=f"Join class {code}")).to_be_visible()
    assert stranger.locator('[data-testid="stRadio"]').count() == 0

    expect(host.get_by_text("5 answers from 5 joined.").first).to_be_visible()  # live: the view polls by itself
    expect(room.get_by_text("5 answers from 5 joined.").first).to_be_visible()
    host.get_by_role("button", name="Reveal the answer").click()
    host.wait_for_selector(IDLE)
    assert_no_exception(host)
    right = f"{'ABC'[lp.step(1).answer]}. {lp.choices(1)[lp.step(1).answer]}"
    expect(room.get_by_text(f"Answer: {right}")).to_be_visible()
    # drawn once and kept; six frames (the room and five phones) load the same page at once on a 2-core machine
    expect(room.frame_locator("iframe").locator(".js-plotly-plot").first).to_be_visible(timeout=4 * TIMEOUT_MS)
    room.wait_for_selector(IDLE)
    _shot(room, "class-room-1920x1080-path-question.png", tmp_path)
    for i, (_, phone) in enumerate(phones):  # each phone: its own answer, the verdict, the explanation, figures
        lang = langs[i]
        expect(phone.get_by_text(_say("your-answer-was", lang, answer="").strip()).first).to_be_visible()
        verdict = _say("verdict-right", lang) if i % 2 == 0 else _say("verdict-wrong", lang, answer="").strip()
        expect(phone.get_by_text(verdict).first).to_be_visible()
        why = " ".join(content.text("path", "q1-why", lang=lang).split())[:30]
        expect(phone.get_by_text(why).first).to_be_visible()
        expect(phone.locator(".js-plotly-plot")).to_have_count(1)
        expect(phone.locator("iframe")).to_have_count(1)  # the page's own figure that answers it
        assert phone.evaluate(WIDTH) <= PHONE["width"]
    phones[0][1].wait_for_selector(IDLE)
    for _, phone in phones[:2]:  # the path page's own figure, drawn inside its frame
        expect(phone.frame_locator("iframe").locator(".js-plotly-plot").first).to_be_visible(timeout=4 * TIMEOUT_MS)
    shoot(phones[0][1], tmp_path / "class-phone-light-after-reveal-path.png")  # the whole page: figures below
    shoot(phones[1][1], tmp_path / "class-phone-dark-after-reveal-path.png")

    # the lecturer's own question: choices typed with Markdown, a right answer and an explanation
    host.get_by_text("My own question").click()
    host.get_by_role("textbox", name="Question", exact=True).fill("Which choice is shown exactly as typed?")
    host.get_by_role("textbox", name="Choices, one per line").fill(f"{MARKDOWN_CHOICE}\n{COLOR_CHOICE}\nplain words")
    host.get_by_role("textbox", name="Right answer: a letter (A, B, ...) or a number").fill("A")
    host.get_by_role("textbox", name="Explanation shown at the reveal (optional)").fill(
        "Every character shows as typed."
    )
    host.get_by_role("button", name="Ask the class").click()
    host.wait_for_selector(IDLE)
    assert_no_exception(host)
    for i, (_, phone) in enumerate(phones):
        expect(phone.get_by_text("Which choice is shown exactly as typed?")).to_be_visible()
        options = phone.locator('[data-testid="stRadioOption"]')
        expect(options).to_have_count(3)
        assert [o.replace("\u2060", "").strip() for o in options.all_inner_texts()] == [
            f"A. {MARKDOWN_CHOICE}",
            f"B. {COLOR_CHOICE}",
            "C. plain words",
        ]
        assert phone.locator('[data-testid="stRadio"] a, [data-testid="stRadio"] strong').count() == 0
        _answer(phone, i % 3, langs[i])
    expect(host.get_by_text("5 answers from 5 joined.").first).to_be_visible()
    host.get_by_role("button", name="Reveal the answer").click()
    expect(room.get_by_text(f"Answer: A. {MARKDOWN_CHOICE}")).to_be_visible()
    for i, (_, phone) in enumerate(phones):
        lang = langs[i]
        expect(phone.get_by_text(_say("your-answer-was", lang, answer=f"{'ABC'[i % 3]}.")).first).to_be_visible()
        verdict = _say("verdict-right", lang) if i % 3 == 0 else _say("verdict-wrong", lang, answer="").strip()
        expect(phone.get_by_text(verdict).first).to_be_visible()
        expect(phone.get_by_text("Every character shows as typed.")).to_be_visible()
        assert (
            phone.locator('[data-testid="stMain"] [data-testid="stAlert"] a, [data-testid="stMain"] strong').count()
            == 0
        )
        assert_no_exception(phone)
    room.wait_for_selector(IDLE)
    _shot(room, "class-room-1920x1080-own-question.png", tmp_path)
    shoot(phones[0][1], tmp_path / "class-phone-light-after-reveal-own.png")
    shoot(phones[1][1], tmp_path / "class-phone-dark-after-reveal-own.png")
    shoot(phones[4][1], tmp_path / "class-phone-zh-after-reveal-own.png")
    host.wait_for_selector(IDLE)
    host.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    _shot(host, "class-lecturer-1440x900-own-question.png", tmp_path)

    with host.expect_download() as download:  # the CSV: question text and the letters the screen shows
        host.get_by_role("button", name="Download the answers (CSV)").click()
    table = Path(download.value.path()).read_text().splitlines()
    assert table[0].startswith("question,kind,step,question_text,student,answer,answer_text")
    assert len(table) == 11 and any(",A," in row for row in table) and "Which choice is shown" in table[-1]

    host.get_by_text("Joining open").click()  # the lecturer closes joining: a new device is refused
    host.wait_for_selector(IDLE)
    closed = stranger.get_by_text("The lecturer has closed joining for this class.").first
    for _ in range(10):  # the switch's change reaches the server with its rerun, a moment after the click
        stranger.goto(join_link)
        stranger.wait_for_selector(IDLE)
        if closed.is_visible():
            break
        host.wait_for_timeout(1000)
    expect(closed).to_be_visible()

    host.goto(f"{app_url}/compute")  # the lecturer leaves the class page and comes back
    host.goto(f"{app_url}/class")
    host.get_by_role("link", name=f"Back to your class {code}").click()
    expect(host.get_by_role("button", name="Ask the class")).to_be_visible()  # the lecturer's view again
    assert not re.search(r"host=|me=", host.url)
    for context in (host_context, room_context, stranger_context, *(c for c, _ in phones)):
        context.close()
