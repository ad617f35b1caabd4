#!/usr/bin/env python3
"""The web client in real Chromium (Debian's chromium + chromium-driver, Selenium, headless) against a real
wots-relay over loopback, beside the wots CLI from the same build.

Checks: the served page's CSP and headers and that it has no inline script; two users register in two browser
profiles and exchange messages live; sent/delivered/read marks and typing (when the relay takes envelope v2);
browser -> CLI and CLI -> browser; a key change (the CLI user rotates) refused until accepted; a group of two
browsers and a CLI user (messages all ways, receipts counted per member, the CLI's typing, a file from a browser to
the CLI, the CLI adding and removing members, a removed browser member told so and sent nothing after); restore on a
fresh profile. Screenshots go to OUTPUT (default .build/web-screenshots).

Usage: browser_e2e.py --bin-path DIR [--output DIR]     (DIR holds wots-relay and wots)
"""

import argparse
import json
import os
import pty
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PASSED = []


def check(what, condition, detail=""):
    if not condition:
        print(f"FAIL: {what}\n{detail}", file=sys.stderr)
        raise SystemExit(1)
    PASSED.append(what)
    print(f"ok {len(PASSED)} - {what}", flush=True)


def png(width, height, rgb, lower=None):
    """A real PNG (so Chromium decodes it and the <img> gets a natural width): one colour, or two halves."""
    def chunk(kind, data):
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    rows = b"".join(b"\x00" + bytes(rgb if lower is None or y < height // 2 else lower) * width for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def write_file(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "wb") as file:
        file.write(data)
    return path


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Relay:
    def __init__(self, bin_path, work):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(work, "relay.log"), "w")
        self.process = subprocess.Popen(
            [os.path.join(bin_path, "wots-relay"), "serve", "--port", str(self.port),
             "--database", f"sqlite:{work}/relay.sqlite", "--registrations-per-minute", "100000",
             "--admin-address", "none", "--web-root", os.path.join(ROOT, "web")],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/healthz", timeout=1)
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        raise SystemExit(f"relay did not start:\n{open(self.log.name).read()[-2000:]}")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=15)


class CLI:
    def __init__(self, bin_path, relay, work, nickname):
        self.binary = os.path.join(bin_path, "wots")
        self.home = os.path.join(work, "cli", nickname)
        os.makedirs(self.home, mode=0o700)
        self.relay = relay
        self.env = {**os.environ, "WOTS_HOME": self.home, "WOTS_RELAY": relay.url,
                    "WOTS_SECRET": f"secret of {nickname}, long enough"}

    def run(self, *arguments):
        result = subprocess.run([self.binary, *arguments], env=self.env, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise SystemExit(f"wots {' '.join(arguments)} failed ({result.returncode}):\n{result.stderr}")
        return result.stdout

    def terminal(self, *arguments):
        """Runs `wots ARGUMENTS` on a pseudo-terminal (so `wots chat` reads key by key and sends typing)."""
        return Terminal(self, arguments)


class Terminal:
    """A `wots` process on a pseudo-terminal: keys in, what it printed out (waited for, never slept on)."""

    def __init__(self, cli, arguments):
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen([cli.binary, *arguments], env=cli.env, stdin=slave, stdout=slave, stderr=slave,
                                        close_fds=True)
        os.close(slave)
        self.output = b""

    def wait_for(self, text, timeout=30):
        deadline = time.monotonic() + timeout
        while text.encode() not in self.output:
            remaining = deadline - time.monotonic()
            ready = select.select([self.master], [], [], max(0, remaining))[0] if remaining > 0 else []
            if not ready:
                raise SystemExit(f"FAIL: wots never printed {text!r}:\n{self.output.decode(errors='replace')[-2000:]}")
            try:
                self.output += os.read(self.master, 4096)
            except OSError:  # the process ended: its terminal is gone
                raise SystemExit(f"FAIL: wots ended before {text!r}:\n{self.output.decode(errors='replace')[-2000:]}")

    def keys(self, text):
        os.write(self.master, text.encode())

    def close(self):
        """Ctrl-D on an empty line ends the chat; the process must exit by itself."""
        self.keys("\x04")
        try:
            self.process.wait(timeout=30)
        finally:
            os.close(self.master)


class Browser:
    """One browser profile: its own user-data folder, so its IndexedDB (keys, messages) is its own."""

    all = []

    def __init__(self, name, url, work, width=1000, height=900):
        self.name = name
        Browser.all.append(self)
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--user-data-dir={work}/profile-{name}", f"--window-size={width},{height}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        if width < 500:  # below Chromium's smallest window: emulate a phone's viewport
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
        self.driver.get(url)

    def wait(self, condition, what, timeout=30):
        try:
            # The page re-renders whole regions on every state change, so an element found a moment ago may be gone.
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1,
                                 ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)
                                 ).until(lambda _: condition())
        except TimeoutException:
            logs = "\n".join(entry["message"] for entry in self.driver.get_log("browser"))[-3000:]
            self.driver.save_screenshot(os.path.join(tempfile.gettempdir(), f"wots-failed-{self.name}.png"))
            for other in Browser.all:
                if other is not self:
                    other.driver.save_screenshot(os.path.join(tempfile.gettempdir(), f"wots-failed-{other.name}.png"))
            raise SystemExit(f"FAIL: {self.name}: timed out waiting for {what}\nbrowser log:\n{logs}")

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def finds(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css):
        return self.driver.execute_script(
            "const found = document.querySelector(arguments[0]); return found ? found.innerText : ''", css)

    def type(self, css, text):
        """Clears and types into a field, looking it up again when a redraw replaced it meanwhile."""
        def attempt():
            try:
                element = self.find(css)
                if not element.is_enabled():
                    return False
                element.clear()
                element.send_keys(text)
                return True
            except (StaleElementReferenceException, NoSuchElementException):
                return False
        self.wait(attempt, f"typing into {css}")

    def go(self, hash_):
        self.driver.execute_script("location.hash = arguments[0]", hash_)

    def register(self, nickname, secret, preset="tiger", picture=None):
        self.wait(lambda: self.finds("#register-title"), "the register form")
        self.type("input[name=nickname]", nickname)
        self.type("input[name=secret]", secret)
        self.type("input[name=secret-again]", secret)
        self.find(f"label[for=avatar-{preset}]").click()
        if picture:
            self.find("input[name=avatar-image]").send_keys(picture)
            self.wait(lambda: self.finds(".avatar-preview img"), "the chosen picture's preview")
        self.find("form button[type=submit]").click()
        self.wait(lambda: nickname in self.text("[data-testid=me]"), f"{nickname} logged in", timeout=60)

    def open_chat(self, nickname):
        self.go("#directory")
        self.wait(lambda: self.finds("input[type=search]"), "the directory")
        search = self.find("input[type=search]")
        search.send_keys(nickname, Keys.ENTER)
        self.wait(lambda: self.text("#chat-title") == nickname, f"the chat with {nickname}")

    def send(self, text):
        self.type("textarea[name=message]", text + Keys.ENTER)

    def items(self):
        """The chat's messages, read in one script (the list is redrawn as messages and receipts arrive)."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('.messages li')].map((li) => ({"
            "direction: li.className, status: li.dataset.status || '', text: li.querySelector('.body')?.textContent ?? ''}))")

    def messages(self):
        return [item["text"] for item in self.items()]

    def group_items(self):
        """The group chat's lines: {kind: in/out/note…, sender, status, receipts, text} read in one script."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('.messages li')].map((li) => ({kind: li.className,"
            " sender: li.dataset.sender || '', status: li.dataset.status || '', receipts: li.dataset.receipts || '',"
            " text: (li.querySelector('.body') || li).textContent}))")

    def group_receipts(self, text):
        """How far the group message `text` this browser sent got (`✓✓ 2/3 · read 1/3`), or None."""
        marks = [item["receipts"] for item in self.group_items() if item["kind"] == "out" and item["text"] == text]
        return marks[-1] if marks else None

    def group_has(self, text, sender=None):
        return any(text in item["text"] and (sender is None or item["sender"] == sender) for item in self.group_items())

    def open_group(self, name):
        self.go("#home")
        self.wait(lambda: self.finds(f"a[data-group='{name}']"), f"the group {name} in the list")
        self.find(f"a[data-group='{name}']").click()
        self.wait(lambda: self.text("#group-title") == name, f"the group chat of {name}")

    def messages_and_notes(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('.messages li')].map((li) => li.textContent).join('\\n')")

    def has_message(self, text):
        return text in self.messages()

    def mark_of(self, text):
        marks = [item["status"] for item in self.items() if item["direction"] == "out" and item["text"] == text]
        return marks[-1] if marks else None

    def attach(self, path):
        self.find("input[name=attachment]").send_keys(path)

    def attachment(self, name):
        """The chat item showing attachment `name`: {status, image: natural width or None, href} or None."""
        return self.driver.execute_script(
            "const name = arguments[0];"
            "const li = [...document.querySelectorAll('.messages li')].find((li) =>"
            "  [...li.querySelectorAll('img.attachment-image, a.attachment-file')].some((e) =>"
            "    e.getAttribute('alt') === name || e.getAttribute('download') === name));"
            "if (!li) return null;"
            "const img = li.querySelector('img.attachment-image'), link = li.querySelector('a.attachment-file');"
            "return {status: li.dataset.status || '', image: img && img.complete ? img.naturalWidth : null,"
            "  href: link ? link.href : (img ? img.src : null)}", name)

    def download(self, css, folder, name):
        """Clicks a download link (Chromium saves into `folder`) and returns the saved file's bytes."""
        self.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})
        self.find(css).click()
        path = os.path.join(folder, name)
        self.wait(lambda: os.path.exists(path) and not os.path.exists(path + ".crdownload"), f"{name} downloaded")
        with open(path, "rb") as file:
            return file.read()

    def screenshot(self, output, name):
        path = os.path.join(output, f"{name}.png")
        self.driver.save_screenshot(path)
        return path

    def quit(self):
        self.driver.quit()


def check_served_page(relay):
    with urllib.request.urlopen(f"{relay.url}/") as response:
        headers = response.headers
        html = response.read().decode()
    policy = headers.get("Content-Security-Policy", "")
    check("GET / has a CSP with default-src 'self', script-src 'self' and no unsafe-*",
          "default-src 'self'" in policy and "script-src 'self'" in policy and "unsafe" not in policy, policy)
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    loose = [name for name, sources in directives.items()
             if any(source in ("blob:", "data:", "*", "https:", "http:") for source in sources)]
    check("only img-src allows blob: (decrypted pictures); no directive allows data:, * or a scheme",
          loose == ["img-src"] and directives["img-src"] == ["'self'", "blob:"], policy)
    check("GET / says X-Content-Type-Options: nosniff", headers.get("X-Content-Type-Options") == "nosniff")
    scripts = re.findall(r"<script\b[^>]*>", html, re.I)
    check("the served page has no inline script: every <script> has a src",
          scripts and all("src=" in tag for tag in scripts) and not re.search(r"\son[a-z]+=", html, re.I), html)
    with urllib.request.urlopen(f"{relay.url}/v1/relay") as response:
        check("the API beside it is unchanged (GET /v1/relay is JSON)", "relayID" in json.loads(response.read()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-path", required=True)
    parser.add_argument("--output", default=os.path.join(ROOT, ".build", "web-screenshots"))
    arguments = parser.parse_args()
    os.makedirs(arguments.output, exist_ok=True)
    work = tempfile.mkdtemp(prefix="wots-browser-")
    relay = Relay(arguments.bin_path, work)
    browsers = []
    try:
        run(relay, arguments, work, browsers)
    finally:
        for browser in browsers:
            browser.quit()
        relay.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(PASSED)} passed; screenshots in {arguments.output}")


def run(relay, arguments, work, browsers):
    output = arguments.output
    check_served_page(relay)

    alice = Browser("alice", relay.url, work)
    browsers.append(alice)
    bob = Browser("bob", relay.url, work, width=390, height=844)
    browsers.append(bob)
    alice.wait(lambda: alice.finds("#register-title"), "the register form")
    alice.screenshot(output, "register")

    alice.type("input[name=nickname]", "alice")
    alice.type("input[name=secret]", "alice's long secret")
    alice.type("input[name=secret-again]", "not the same")
    alice.find("form button[type=submit]").click()
    alice.wait(lambda: "differ" in alice.text(".error"), "the mismatch error")
    check("a secret typed twice differently is refused before any work", "differ" in alice.text(".error"))
    alice.driver.refresh()
    files = os.path.join(work, "files")
    os.makedirs(files)
    not_a_picture = write_file(files, "avatar.txt", b"not a picture at all")
    alice.wait(lambda: alice.finds("input[name=avatar-image]"), "the avatar picture input")
    alice.find("input[name=avatar-image]").send_keys(not_a_picture)
    alice.wait(lambda: "PNG or JPEG" in alice.text(".picture-error"), "the avatar refusal")
    big = write_file(files, "big.png", png(1, 1, (0, 0, 0))[:16] + os.urandom(70_000))
    alice.find("input[name=avatar-image]").send_keys(big)
    alice.wait(lambda: "at most 64 KiB" in alice.text(".picture-error"), "the avatar size refusal")
    check("an avatar picture that is not a PNG/JPEG, or is over 64 KiB, is refused with a clear message", True)
    alice.driver.refresh()
    avatar = write_file(files, "alice-avatar.png", png(48, 48, (200, 40, 120), (250, 200, 60)))
    alice.register("alice", "alice's long secret", preset="tiger", picture=avatar)
    bob.register("bob", "bob's long secret", preset="rabbit")
    check("two users register in two browser profiles (keys made in the browser, scrypt in a worker)", True)

    alice.open_chat("bob")
    alice.send("hello bob, from alice's browser")
    bob.go("#home")
    bob.wait(lambda: bob.finds("a[data-nickname=alice]"), "alice in bob's conversations")
    picture_width = ("const img = document.querySelector(arguments[0]);"
                     "return img && img.complete ? img.naturalWidth : 0")
    bob.wait(lambda: bob.driver.execute_script(picture_width, "a[data-nickname=alice] img.avatar-image") > 0,
             "alice's picture in bob's conversation list")
    bob.find("a[data-nickname=alice]").click()
    bob.wait(lambda: bob.has_message("hello bob, from alice's browser"), "alice's message at bob")
    check("a message from one browser arrives in the other", True)
    bob.wait(lambda: bob.driver.execute_script(picture_width, ".chat-head img.avatar-image") == 48,
             "alice's picture in the chat header")
    check("alice's avatar picture (registered as an image) shows at bob after first contact, decrypted from its blob",
          True)
    bob.send("hi alice, live from bob")
    alice.wait(lambda: alice.has_message("hi alice, live from bob"), "bob's reply, live over the WebSocket")
    check("the reply arrives live while the chat is open", True)

    version = alice.driver.execute_script("return document.body.dataset.sendVersion")
    if version == "2":
        alice.wait(lambda: alice.mark_of("hello bob, from alice's browser") == "read", "the read mark")
        check("sent → delivered → read marks: bob read alice's message", True)
        alice.find("textarea[name=message]").send_keys("typing but not sending")
        typing_support = lambda: alice.driver.execute_script("return document.body.dataset.typing")  # noqa: E731
        alice.wait(lambda: typing_support() is not None, "the relay's answer to a typing frame")
        if typing_support() == "on":
            bob.wait(lambda: "alice is typing" in bob.text(".typing"), "the typing line at bob")
            check("typing shows live in the other browser (ephemeral frames)", True)
        else:
            print("skip: typing needs a relay that forwards ephemeral frames (this one stored it as mail)")
        alice.type("textarea[name=message]", "")
        Select(alice.find("select[name=timer]")).select_by_value("5")
        bob.wait(lambda: "alice set disappearing messages to 5 s" in bob.messages_and_notes(), "the timer note at bob")
        alice.send("this one disappears")
        bob.wait(lambda: bob.has_message("this one disappears"), "the disappearing message at bob")
        bob.screenshot(output, "disappearing")
        for browser in (alice, bob):
            browser.wait(lambda: not browser.has_message("this one disappears")
                         and "a disappearing message expired" in browser.messages_and_notes(), "the expiry", timeout=20)
        check("a disappearing message (5 s timer) vanishes from both browsers, saying so", True)
        Select(alice.find("select[name=timer]")).select_by_value("0")
        bob.find("#account-bar button[name=read-receipts]").click()
        bob.wait(lambda: bob.find("#account-bar button[name=read-receipts]").get_attribute("aria-pressed") == "false",
                 "read receipts off")
        alice.send("read without telling")
        bob.wait(lambda: bob.has_message("read without telling"), "the message at bob")
        alice.wait(lambda: alice.mark_of("read without telling") == "delivered", "the delivered mark")
        bob.send("a reply after reading")
        alice.wait(lambda: alice.has_message("a reply after reading"), "bob's reply")
        check("with read receipts off, bob's browser confirms delivery but not reading",
              alice.mark_of("read without telling") == "delivered")
        bob.find("#account-bar button[name=read-receipts]").click()
    else:
        print("skip: receipts and typing need a relay that takes envelope v2 (this one answered unsupported_version)")

    bob.screenshot(output, "chat-phone")
    alice.find("details.verify summary").click()
    safety_alice = alice.text("[data-testid=safety-number]")
    bob.find("details.verify summary").click()
    safety_bob = bob.text("[data-testid=safety-number]")
    check("both browsers show the same 60-digit safety number",
          safety_alice == safety_bob and len(re.sub(r"\D", "", safety_alice)) == 60, f"{safety_alice!r} {safety_bob!r}")
    alice.screenshot(output, "chat-safety-number")
    alice.wait(lambda: alice.finds("[data-testid=safety-qr] canvas"), "the safety number's QR code")
    qr_png = write_file(work, "safety-qr.png", alice.find("[data-testid=safety-qr] canvas").screenshot_as_png)
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", qr_png], capture_output=True, text=True).stdout.strip()
    check("the QR code under the digits reads back (zbarimg) as the same 60 digits",
          decoded == re.sub(r"\D", "", safety_alice), f"{decoded!r} vs {safety_alice!r}")

    if version == "2":
        red = png(160, 96, (220, 30, 30), (250, 240, 230))
        alice.attach(write_file(files, "red.png", red))
        bob.wait(lambda: (bob.attachment("red.png") or {}).get("image") == 160, "the picture inline at bob")
        check("a PNG from alice's browser shows inline at bob (an <img> from an object URL, alt = the file name)", True)
        alice.wait(lambda: (alice.attachment("red.png") or {}).get("status") in ("delivered", "read"),
                   "the picture delivered")
        notes = b"plain notes, not a picture\n" * 50
        alice.attach(write_file(files, "notes.txt", notes))
        bob.wait(lambda: (bob.attachment("notes.txt") or {}).get("href"), "the file link at bob")
        link = bob.attachment("notes.txt")["href"]
        saved = bob.download("a.attachment-file[download='notes.txt']", os.path.join(work, "bob-downloads"),
                             "notes.txt")
        check("a file that is not a picture is a download link (object URL) that saves the same bytes",
              link.startswith("blob:") and saved == notes)
        # A blob that does not match the digest its message names (as if the relay swapped it): alice's page lies
        # about the digest once, for a blob of exactly this size.
        tampered = b"these bytes will not match their digest"
        alice.driver.execute_script(
            "const size = arguments[0], original = SubtleCrypto.prototype.digest;"
            "crypto.subtle.digest = async function (algorithm, data) {"
            "  const digest = new Uint8Array(await original.call(this, algorithm, data));"
            "  if (data.byteLength === size) { digest[0] ^= 1; delete crypto.subtle.digest; }"
            "  return digest.buffer; };", len(tampered) + 16)
        alice.attach(write_file(files, "tampered.txt", tampered))
        bob.wait(lambda: "attachment corrupt" in bob.messages_and_notes(), "the corrupt note at bob")
        shown = bob.driver.execute_script(
            "const li = [...document.querySelectorAll('.messages li')].find((li) =>"
            " li.textContent.includes('attachment corrupt'));"
            "return li.querySelectorAll('img.attachment-image, a.attachment-file').length")
        check("a blob that does not match its digest shows 'attachment corrupt' and nothing of the file", shown == 0)
        bob.screenshot(output, "chat-attachments")
        bob.driver.refresh()
        bob.wait(lambda: (bob.attachment("red.png") or {}).get("image") == 160, "the picture after a reload")
        check("after a reload the picture still shows (decrypted bytes kept in IndexedDB)", True)

    # Interop with the CLI, both ways.
    carol = CLI(arguments.bin_path, relay, work, "carol")
    carol.run("register", "--nick", "carol")
    alice.open_chat("carol")
    alice.send("to the terminal, from the browser")
    alice.wait(lambda: alice.mark_of("to the terminal, from the browser") in ("sent", "delivered", "read"), "sent")
    inbox = json.loads(carol.run("inbox", "--json"))
    texts = [entry.get("text") for entry in inbox]
    check("the CLI opens what the browser sealed", "to the terminal, from the browser" in texts, json.dumps(inbox)[:500])
    carol.run("send", "--to", "alice", "to the browser, from the terminal")
    alice.wait(lambda: alice.has_message("to the terminal, from the browser") and
               alice.has_message("to the browser, from the terminal"), "the CLI's message in the browser")
    check("the browser opens what the CLI sealed", True)

    if version == "2":
        payload = os.urandom(150_000)
        alice.attach(write_file(files, "from-browser.bin", payload))
        alice.wait(lambda: (alice.attachment("from-browser.bin") or {}).get("status") in ("sent", "delivered", "read"),
                   "the file sent to carol")
        downloads = os.path.join(work, "downloads")
        inbox = json.loads(carol.run("inbox", "--json", "--download-dir", downloads))
        saved = [entry.get("savedTo") for entry in inbox if entry.get("savedTo")]
        check("the CLI downloads a file the browser sent, byte for byte (3 chunks, digest and tags checked)",
              len(saved) == 1 and open(saved[0], "rb").read() == payload, json.dumps(inbox)[:800])
        cli_picture = png(128, 80, (20, 120, 220), (240, 240, 240))
        carol.run("send", "--to", "alice", "--file", write_file(files, "from-cli.png", cli_picture))
        alice.wait(lambda: (alice.attachment("from-cli.png") or {}).get("image") == 128, "the CLI's picture inline")
        check("the browser shows inline a picture the CLI sent with wots send --file", True)

    # Key change: carol rotates; alice's browser refuses until she accepts.
    carol.run("rotate")
    alice.send("after carol's rotation")
    alice.wait(lambda: alice.finds(".key-change:not([hidden])"), "the key-change warning")
    check("a changed key is refused: the warning shows and nothing was delivered",
          alice.find("textarea[name=message]").get_attribute("disabled") is not None
          and alice.mark_of("after carol's rotation") == "failed")
    alice.screenshot(output, "key-change")
    alice.find(".key-change button").click()
    alice.wait(lambda: alice.finds(".key-change[hidden]"), "the warning gone after accepting")
    alice.send("after accepting carol's new key")
    alice.wait(lambda: alice.mark_of("after accepting carol's new key") in ("sent", "delivered", "read"), "sent")
    inbox = json.loads(carol.run("inbox", "--json"))
    check("once accepted, the message goes to the new key and the CLI opens it",
          "after accepting carol's new key" in [entry.get("text") for entry in inbox], json.dumps(inbox)[:500])

    group_scenario(alice, bob, carol, arguments, work, output)

    # Restore on a fresh profile.
    fresh = Browser("alice-restored", relay.url, work)
    browsers.append(fresh)
    fresh.go("#restore")
    fresh.wait(lambda: fresh.finds("#restore-title"), "the restore form")
    fresh.type("input[name=nickname]", "alice")
    fresh.type("input[name=secret]", "wrong secret entirely")
    fresh.find("form button[type=submit]").click()
    fresh.wait(lambda: "Wrong secret" in fresh.text(".error"), "the wrong-secret refusal")
    check("restore with a wrong secret is refused", True)
    fresh.type("input[name=secret]", "alice's long secret")
    fresh.find("form button[type=submit]").click()
    fresh.wait(lambda: "alice" in fresh.text("[data-testid=me]"), "alice restored", timeout=60)
    fresh.open_chat("bob")
    fresh.send("from alice's restored browser")
    bob.wait(lambda: bob.has_message("from alice's restored browser"), "the restored account's message at bob")
    check("restore on a fresh profile: same keys, bob accepts its messages without a key change",
          not bob.finds(".key-change:not([hidden])"))
    alice.go("#home")
    alice.wait(lambda: alice.finds("a[data-nickname=bob]"), "alice's conversations")
    alice.screenshot(output, "conversations")

    # Logout forgets everything this browser kept.
    bob.find("#account-bar button[name=logout]").click()
    bob.driver.switch_to.alert.accept()
    bob.wait(lambda: bob.finds("#register-title"), "the register form after logout")
    databases = bob.driver.execute_async_script(
        "const done = arguments[0]; indexedDB.databases().then((all) => done(all.map((db) => db.name)))")
    check("logout deletes the browser's keys, contacts and messages (no IndexedDB database left)",
          "wots" not in databases, repr(databases))

    # Every form control the user meets has a label (its accessible name).
    unlabelled = alice.driver.execute_script(
        "return [...document.querySelectorAll('input, textarea, select')]"
        ".filter((c) => c.type !== 'hidden' && c.labels.length === 0 && !c.getAttribute('aria-label')).length")
    fresh.go("#directory")
    fresh.wait(lambda: fresh.finds("input[type=search]"), "the directory")
    unlabelled += fresh.driver.execute_script(
        "return [...document.querySelectorAll('input, textarea, select')]"
        ".filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).length")
    check("every input, textarea and select on the conversation and directory screens has a label", unlabelled == 0)
    fresh.screenshot(output, "directory")


def group_scenario(alice, bob, carol, arguments, work, output):
    """Two browsers and a CLI user in one group: messages all ways, the CLI changes the membership, bob is removed."""
    def cli_group_events():
        return [entry for entry in json.loads(carol.run("inbox", "--json")) if entry.get("kind", "").startswith("group")]

    alice.go("#new-group")
    alice.wait(lambda: alice.finds("input[name=group-name]") and alice.finds("label[data-nickname=carol]"),
               "the new group form")
    alice.type("input[name=group-name]", "Web crew")
    for nickname in ("bob", "carol"):
        alice.find(f"label[data-nickname={nickname}]").click()
    alice.screenshot(output, "group-new")
    alice.find("form button[type=submit]").click()
    alice.wait(lambda: alice.text("#group-title") == "Web crew", "the new group's chat")
    alice.wait(lambda: alice.group_has("you created Web crew with"), "the create line at alice")
    bob.open_group("Web crew")
    bob.wait(lambda: bob.group_has("alice created Web crew with"), "the create line at bob")
    events = cli_group_events()
    check("a browser creates a group with another browser and a CLI user; all three hold it",
          any("alice created Web crew" in (event.get("line") or "") for event in events), json.dumps(events)[:800])

    alice.send("hello crew, from alice's browser")
    bob.wait(lambda: bob.group_has("hello crew, from alice's browser", sender="alice"), "alice's group message at bob")
    texts = [event.get("text") for event in cli_group_events()]
    check("browser → browser and browser → CLI: one group message, sealed once, opens at both, named by its sender",
          "hello crew, from alice's browser" in texts, repr(texts))
    bob.send("bob here, to the crew")
    alice.wait(lambda: alice.group_has("bob here, to the crew", sender="bob"), "bob's group message at alice")
    texts = [event.get("text") for event in cli_group_events()]
    check("the other browser's group message reaches the first browser and the CLI", "bob here, to the crew" in texts,
          repr(texts))
    carol.run("send", "--group", "Web crew", "carol from the terminal, to the crew")
    for browser in (alice, bob):
        browser.wait(lambda: browser.group_has("carol from the terminal, to the crew", sender="carol"),
                     f"the CLI's group message at {browser.name}")
    check("CLI → browsers: a group message the CLI sealed opens in both browsers, named by its sender", True)

    # Receipts: bob's browser (its group chat open) stored and read alice's message; the CLI stored it (inbox --json
    # sends no read receipts). Each member told alice alone, with a 1:1 receipt.
    first = "hello crew, from alice's browser"
    alice.wait(lambda: alice.group_receipts(first) == "✓✓ 2/2 · read 1/2", "receipts from both members at alice")
    check("group receipts: the sender's browser counts each member's 1:1 receipt (✓✓ 2/2 · read 1/2)", True)

    # Typing: the CLI's group chat on a terminal sends one ephemeral group envelope; both browsers show it.
    chat = carol.terminal("chat", "--group", "Web crew")
    chat.wait_for("chatting in Web crew")
    chat.wait_for("connected to")
    chat.keys("typed in the terminal")
    for browser in (alice, bob):
        browser.wait(lambda: "carol is typing" in browser.text("[data-testid=group-typing]"),
                     f"carol's typing at {browser.name}")
    check("the CLI's group typing (an ephemeral send_group frame, no seq) shows in both browsers", True)
    chat.keys("\r")
    alice.wait(lambda: alice.group_has("typed in the terminal", sender="carol"), "the line typed in the CLI chat")
    alice.wait(lambda: "carol is typing" not in alice.text("[data-testid=group-typing]"), "typing stopped on send")
    chat.close()
    alice.find("textarea[name=message]").send_keys("the browser types too")
    bob.wait(lambda: "alice is typing" in bob.text("[data-testid=group-typing]"), "alice's typing at bob")
    alice.type("textarea[name=message]", "")
    check("the browser's own group typing shows in the other browser", True)

    # A file from the browser: uploaded once, for both members; the CLI member saves it byte for byte.
    payload = os.urandom(100_000)
    alice.attach(write_file(os.path.join(work, "files"), "crew-notes.bin", payload))
    alice.wait(lambda: (alice.attachment("crew-notes.bin") or {}).get("status") in ("sent", "delivered", "read"),
               "the group file sent")
    bob.wait(lambda: (bob.attachment("crew-notes.bin") or {}).get("href"), "the group file at bob")
    downloads = os.path.join(work, "group-downloads")
    saved = [event.get("savedTo") for event in json.loads(carol.run("inbox", "--json", "--download-dir", downloads))
             if event.get("savedTo")]
    check("a file a browser sends to the group is uploaded once and the CLI member saves it byte for byte",
          len(saved) == 1 and open(saved[0], "rb").read() == payload, repr(saved))
    alice.wait(lambda: alice.driver.execute_script(
        "const li = [...document.querySelectorAll('.messages li.out')].find((li) =>"
        " li.querySelector('a.attachment-file[download=\"crew-notes.bin\"]'));"
        "return li ? li.dataset.receipts : ''").startswith("✓✓ 2/2"), "the file's receipts")

    # alice (the admin) makes carol an admin in the browser; carol (CLI) then adds dave and removes bob.
    group_id = alice.driver.execute_script("return location.hash.split('/')[1]")
    alice.go(f"#group-info/{group_id}")
    alice.wait(lambda: alice.finds("li[data-member=carol] button[name=promote]"), "the group info with carol")
    alice.find("li[data-member=carol] button[name=promote]").click()
    alice.wait(lambda: not alice.finds("li[data-member=carol] button[name=promote]"), "carol promoted")
    alice.screenshot(output, "group-info")
    alice.go(f"#group/{group_id}")
    alice.wait(lambda: alice.text("#group-title") == "Web crew", "alice back in the group chat")
    bob.wait(lambda: bob.group_has("alice made carol admin"), "the promote line at bob")
    dave = CLI(arguments.bin_path, carol.relay, work, "dave")
    dave.run("register", "--nick", "dave")
    carol.run("group", "add", "Web crew", "dave")
    for browser in (alice, bob):
        browser.wait(lambda: browser.group_has("carol added dave"), f"the add line at {browser.name}")
    check("a member the CLI adds shows in both browsers (\"carol added dave\"), after the browser made carol admin",
          True)
    carol.run("group", "rename", "Web crew", "--avatar-preset", "dragon")
    alice.wait(lambda: alice.group_has("carol set the avatar of Web crew to dragon")
               and alice.finds(".chat-head svg[aria-label='group avatar: dragon']"), "the group avatar at alice")
    bob.go("#home")
    bob.wait(lambda: bob.finds("a[data-group='Web crew'] svg[aria-label='group avatar: dragon']"),
             "the group avatar in bob's list")
    bob.open_group("Web crew")
    check("a preset group avatar the CLI sets shows in the browser's group header and conversation list", True)
    carol.run("group", "remove", "Web crew", "bob")
    bob.wait(lambda: bob.group_has("you were removed from Web crew by carol"), "the removal line at bob")
    bob.wait(lambda: bob.finds("[data-testid=not-member]:not([hidden])"), "the not-a-member banner")
    alice.wait(lambda: alice.group_has("carol removed bob"), "the removal line at alice")
    check("the CLI removes the other browser: it says \"you were removed\" and can no longer send",
          bob.find("textarea[name=message]").get_attribute("disabled") is not None)
    bob.screenshot(output, "group-removed")

    alice.send("after bob was removed")
    alice.wait(lambda: any(item["text"] == "after bob was removed" and item["status"] in ("sent", "delivered", "read")
                           for item in alice.group_items()), "the message after bob's removal sent")
    received = [entry.get("text") for entry in json.loads(dave.run("inbox", "--json"))]
    bob.driver.refresh()
    bob.wait(lambda: bob.text("#group-title") == "Web crew" and bob.group_has("you were removed"),
             "bob's group chat after a reload (the stream reconnected and took in its mailbox)")
    check("a removed member receives nothing after its removal; the member added meanwhile does",
          "after bob was removed" in received and not bob.group_has("after bob was removed"), repr(received))
    alice.screenshot(output, "group-chat")
    bob.open_chat("alice")


if __name__ == "__main__":
    main()
