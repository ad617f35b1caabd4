#!/usr/bin/env python3
"""Backups, backup verification and SQLite → PostgreSQL migration: process-level tests of the real binary.

    scripts/check_backup.py --relay-bin .build/debug/wots-relay [--senders 4] [--load-seconds 2]

Backup under load (SQLite): a relay serves while SENDERS threads send continuously to two recipients;
`wots-relay admin backup` runs meanwhile. Every message answered 202 before the backup command was started must be
in the backup: a fresh relay started on the restored file serves each of them to its recipient (login + fetch), and
`admin verify-backup` passes.
verify-backup refuses, with a clear line and a non-zero exit: a copy with bytes flipped in a b-tree page in the
middle, a truncated copy, a file that is not SQLite, a SQLite file that is not a relay's, a queued envelope that no
longer parses, and one changed bit inside an envelope's ciphertext (caught by the SHA-256 recorded in FILE.sha256).
Migration (PostgreSQL, a throwaway server): `admin migrate` and `verify-backup` refuse a file holding a table or a
column they do not know; `admin migrate` copies the restored database into a new database; a relay on PostgreSQL
then serves every account (directory lookup by token) and every queued message, the recipients log in and fetch, a
retry of a message acknowledged before the move is not delivered again and the next message takes the next
sequence; a second migrate into the now non-empty database is refused.
PostgreSQL `admin backup`: with pg_dump found it prints the pg_dump command, password masked, and exits 0; with a
pg_dump older than the server, or WOTS_PG_DUMP naming no program, it says so and exits 1.

Prints PASS/FAIL lines and "N passed, M failed"; exits 1 when a check failed, 2 when the test could not run.
"""

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from faulttest.process import PostgresServer, RelayProcess, tail  # noqa: E402
from faulttest.report import Report  # noqa: E402
from wotsclient import Identity, MessageRef, RelayClient, encode_token, seal  # noqa: E402

# Free loopback ports for the operator address too, so relays here never fight another over 127.0.0.1:9090.
RELAY_LIMITS = ["--send-rate", "1000000", "--registrations-per-minute", "1000000", "--mailbox-capacity", "1000000",
                "--admin-address", "127.0.0.1:0"]
COMMAND_SECONDS = 120


class CannotRun(Exception):
    pass


class Backups:
    def __init__(self, options):
        self.options = options
        self.report = Report()
        self.folder = tempfile.mkdtemp(prefix="wots-backup.")
        self.log = os.path.join(self.folder, "relay.log")
        self.recipients = []
        self.senders = []
        self.accepted = []      # (monotonic time the 202 arrived, recipient index, MessageRef)
        self.lock = threading.Lock()
        self.stop_sending = threading.Event()
        self.send_failures = []

    def path(self, name):
        return os.path.join(self.folder, name)

    def admin(self, *arguments, env=None):
        """Runs `wots-relay admin ARGUMENTS…`; returns the CompletedProcess (text)."""
        command = [self.options.relay_bin, "admin", *arguments]
        return subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_SECONDS,
                              env=dict(os.environ, **(env or {})))

    def start_relay(self, database, name):
        relay = RelayProcess(self.options.relay_bin, database, self.path(f"{name}.log"), RELAY_LIMITS)
        relay.start()
        return relay

    # --- backup under load -----------------------------------------------------------------------------------

    def register_users(self, client):
        for index in range(2):
            identity = Identity.generate()
            client.register(identity)
            self.recipients.append(identity)
        for index in range(self.options.senders):
            identity = Identity.generate()
            client.register(identity)
            self.senders.append(identity)
        # Acknowledged mail, so the relay remembers (sender, id) pairs: a retry after the move must not deliver twice.
        sender, recipient = self.senders[0], self.recipients[0]
        session = client.login(sender)
        self.acknowledged = [seal(sender, recipient.public, b"acknowledged %d" % index) for index in range(5)]
        for envelope in self.acknowledged:
            client._expect("send", client.send(session, envelope), 202)
        acknowledged = client.ack(client.login(recipient), [envelope.ref for envelope in self.acknowledged])
        if acknowledged != len(self.acknowledged):
            raise CannotRun(f"{acknowledged} of {len(self.acknowledged)} acknowledgements took")

    def send_continuously(self, base_url, index):
        client = RelayClient(base_url, timeout=10)
        sender = self.senders[index]
        try:
            session = client.login(sender)
            count = 0
            while not self.stop_sending.is_set():
                target = count % len(self.recipients)
                envelope = seal(sender, self.recipients[target].public, b"backup test %d/%d" % (index, count))
                response = client.send(session, envelope)
                if response.status == 202:
                    with self.lock:
                        self.accepted.append((time.monotonic(), target, envelope.ref))
                elif response.status not in (429, 503):
                    self.send_failures.append(f"HTTP {response.status} {response.error_code}")
                count += 1
        except Exception as error:  # noqa: BLE001 — reported as a failed check
            self.send_failures.append(repr(error))
        finally:
            client.close()

    def backup_under_load(self):
        check = self.report.check
        live = self.path("live.sqlite")
        relay = self.start_relay(f"sqlite:{live}", "live")
        try:
            client = RelayClient(relay.base_url)
            self.register_users(client)
            threads = [threading.Thread(target=self.send_continuously, args=(relay.base_url, index), daemon=True)
                       for index in range(self.options.senders)]
            for thread in threads:
                thread.start()
            time.sleep(self.options.load_seconds)  # the load runs a while before the backup
            backup_started = time.monotonic()
            result = self.admin("backup", "--database", f"sqlite:{live}", "--to", self.path("backup.sqlite"), "--json")
            backup_ended = time.monotonic()
            time.sleep(0.5)  # and goes on after it
            self.stop_sending.set()
            for thread in threads:
                thread.join(15)
        finally:
            relay.terminate(10)
            relay.kill()
        with self.lock:
            before = [(target, ref) for at, target, ref in self.accepted if at < backup_started]
            during = sum(1 for at, _, _ in self.accepted if backup_started <= at <= backup_ended)
        check(not self.send_failures, "senders saw only 202 (or a retryable refusal)",
              "; ".join(self.send_failures[:3]))
        if not check(result.returncode == 0, "admin backup exits 0 while senders send",
                     f"status {result.returncode}: {result.stderr.strip()[-300:]}"):
            raise CannotRun("no backup to check")
        answer = json.loads(result.stdout)
        mode = oct(os.stat(self.path("backup.sqlite")).st_mode & 0o777)
        check(mode == "0o600", "the backup file is owner-only", mode)
        leftovers = [name for name in os.listdir(self.folder) if ".partial-" in name]
        check(not leftovers, "no temporary file is left beside the backup", ", ".join(leftovers))
        self.report.info("load", f"{len(self.accepted)} messages accepted in all, {len(before)} before the backup, "
                         f"{during} while it ran; backup {answer['bytes']} bytes in {answer['seconds']:.2f} s")
        check(len(before) >= 20, "the senders had messages accepted before the backup started", f"{len(before)}")
        verified = self.admin("verify-backup", self.path("backup.sqlite"), "--json")
        report = json.loads(verified.stdout) if verified.stdout else {}
        check(verified.returncode == 0 and report.get("ok") is True and report.get("recordedChecksum") == "matches",
              "the backup passes verify-backup, its recorded SHA-256 included",
              f"status {verified.returncode}: {verified.stderr.strip()}")
        self.restore_and_fetch(before)

    def restore_and_fetch(self, before):
        """The restore drill: the backup copied into a new folder, a relay started on it."""
        check = self.report.check
        restored_folder = self.path("restored")
        os.mkdir(restored_folder, 0o700)
        restored = os.path.join(restored_folder, "relay.sqlite")
        shutil.copy2(self.path("backup.sqlite"), restored)
        relay = self.start_relay(f"sqlite:{restored}", "restored")
        try:
            missing = self.missing_messages(relay.base_url, before)
            check(not missing, "a relay on the restored backup serves every message 202'd before the backup started",
                  f"{len(before)} expected, {len(missing)} missing" + (f", e.g. {missing[0]}" if missing else ""))
        finally:
            code, _ = relay.terminate(10)
            relay.kill()
        self.restored = restored

    @staticmethod
    def served_refs(client, identity):
        session = client.login(identity)
        return {MessageRef(item["envelope"]["sender"], item["envelope"]["id"].lower())
                for item in client.fetch_all(session)}

    def missing_messages(self, base_url, expected):
        client = RelayClient(base_url)
        served = set().union(*(self.served_refs(client, identity) for identity in self.recipients))
        client.close()
        return [ref for _, ref in expected if ref not in served]

    # --- verify-backup on damaged files ----------------------------------------------------------------------

    def damaged_copies(self):
        check = self.report.check
        original = self.path("backup.sqlite")
        with open(original, "rb") as source:
            data = bytearray(source.read())
        page_size = int.from_bytes(data[16:18], "big") or 65536
        pages = len(data) // page_size
        # A b-tree page (types 2, 5, 10, 13) near the middle: flipping its header and cell pointers is damage
        # integrity_check must see (an overflow page's payload would need a checksum of its own).
        middle = next((page for page in sorted(range(1, pages), key=lambda page: abs(page - pages // 2))
                       if data[page * page_size] in (2, 5, 10, 13)), None)
        if not check(middle is not None, "the backup has a b-tree page to damage", f"{pages} pages"):
            return
        flipped = bytearray(data)
        start = middle * page_size
        for offset in range(start + 1, start + 40):
            flipped[offset] ^= 0xA5
        cases = [
            ("flipped.sqlite", bytes(flipped), f"bytes flipped in page {middle + 1} of {pages}"),
            ("truncated.sqlite", bytes(data[:len(data) // 2]), f"cut to {len(data) // 2} of {len(data)} bytes"),
            ("not-sqlite.bin", os.urandom(8192), "8 KiB of random bytes"),
        ]
        plain = self.path("plain.sqlite")
        with sqlite3.connect(plain) as connection:
            connection.execute("CREATE TABLE notes (body TEXT)")
        for name, content, what in cases:
            with open(self.path(name), "wb") as damaged:
                damaged.write(content)
        cases_checked = [(name, what) for name, _, what in cases] + [("plain.sqlite", "SQLite, not a relay's")]
        unparsable = self.path("unparsable.sqlite")
        shutil.copy(original, unparsable)
        connection = sqlite3.connect(unparsable)
        connection.execute("UPDATE mailbox_messages SET envelope = x'0001020304' WHERE rowid = "
                           "(SELECT min(rowid) FROM mailbox_messages)")
        connection.commit()
        connection.close()
        result = self.admin("verify-backup", unparsable)
        line = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
        check(result.returncode != 0 and "does not parse" in line,
              "verify-backup refuses a backup holding an envelope that does not parse, naming the row", line)
        payload = self.damaged_payload(data)
        if payload:
            cases_checked.append(payload)
        for name, what in cases_checked:
            result = self.admin("verify-backup", self.path(name))
            line = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
            check(result.returncode != 0 and "failed verification" in line,
                  f"verify-backup refuses a damaged file ({what}) with one clear line", line or "(nothing on stderr)")

    def damaged_payload(self, data):
        """One byte changed inside a queued envelope's ciphertext, where neither integrity_check nor the envelope
        parser looks: only the SHA-256 recorded beside the backup (FILE.sha256) can tell."""
        check = self.report.check
        sidecar = self.path("backup.sqlite.sha256")
        check(os.path.exists(sidecar), "admin backup records the file's SHA-256 beside it", sidecar)
        with sqlite3.connect(f"file:{self.path('backup.sqlite')}?mode=ro", uri=True) as connection:
            envelope = connection.execute("SELECT envelope FROM mailbox_messages LIMIT 1").fetchone()[0]
        # The middle of the envelope is ciphertext (header first, signature last).
        probe = envelope[len(envelope) // 2:len(envelope) // 2 + 32]
        offset = data.find(probe)
        if not check(offset > 0, "a queued envelope's ciphertext is found in the backup file"):
            return None
        changed = bytearray(data)
        changed[offset + 8] ^= 0x01
        with open(self.path("payload.sqlite"), "wb") as damaged:
            damaged.write(changed)
        shutil.copy(sidecar, self.path("payload.sqlite.sha256"))
        return "payload.sqlite", "one bit of a stored envelope's ciphertext changed, FILE.sha256 beside it"

    # --- migration -------------------------------------------------------------------------------------------

    def migration(self):
        check = self.report.check
        postgres = PostgresServer(database="wots_migrated")
        postgres.create()
        try:
            source = f"sqlite:{self.restored}"
            self.unknown_table_refused(postgres)
            result = self.admin("migrate", "--from", source, "--to", postgres.url, "--json")
            if not check(result.returncode == 0, "admin migrate copies the restored SQLite database into PostgreSQL",
                         f"status {result.returncode}: {result.stderr.strip()[-400:]}"):
                return
            tables = {table["table"]: table["rows"] for table in json.loads(result.stdout)["tables"]}
            self.report.info("migrated", ", ".join(f"{name} {rows}" for name, rows in tables.items()))
            relay = self.start_relay(postgres.url, "postgres")
            try:
                client = RelayClient(relay.base_url)
                unknown = []
                for identity in self.recipients + self.senders:
                    entry = client.directory_entry(identity.token)
                    if entry.get("nickname") != identity.nickname:
                        unknown.append(identity.nickname)
                check(not unknown, "the relay on PostgreSQL serves every account in its directory",
                      f"{len(self.recipients + self.senders)} accounts, {len(unknown)} missing")
                with sqlite3.connect(f"file:{self.restored}?mode=ro", uri=True) as connection:
                    rows = connection.execute("SELECT sender, message_id FROM mailbox_messages")
                    queued = [MessageRef(*row) for row in rows]
                missing = self.missing_messages(relay.base_url, [(None, self.ref_from_row(ref)) for ref in queued])
                check(queued and not missing,
                      "recipients log in to the PostgreSQL relay and fetch every queued message",
                      f"{len(queued)} queued, {len(missing)} missing")
                sender = self.senders[0]
                session = client.login(sender)
                retried = client.send(session, self.acknowledged[0])
                redelivered = self.acknowledged[0].ref in self.served_refs(client, self.recipients[0])
                check(retried.status == 202 and not redelivered,
                      "a retry of a message acknowledged before the move is answered, not delivered again",
                      f"HTTP {retried.status}, {'delivered again' if redelivered else 'not delivered again'}")
                highest = max(item["seq"] for item in client.fetch_all(client.login(self.recipients[0])))
                response = client.send(session, seal(sender, self.recipients[0].public, b"after the move"))
                fresh = response.status == 202 and response.body["seq"] == highest + 1
                check(fresh, "a migrated account sends on the PostgreSQL relay; the mailbox sequence goes on",
                      f"HTTP {response.status} {response.body}")
            finally:
                relay.terminate(10)
                relay.kill()
            # The target from $WOTS_DATABASE_URL this time, the way the docs advise (no password in the process list).
            again = self.admin("migrate", "--from", source, env={"WOTS_DATABASE_URL": postgres.url})
            line = again.stderr.strip().splitlines()[-1] if again.stderr.strip() else ""
            check(again.returncode != 0 and "not empty" in line, "a second migrate into the filled database is refused",
                  line or f"status {again.returncode}")
            self.postgres_backup(postgres)
        finally:
            postgres.destroy()

    def unknown_table_refused(self, postgres):
        """A table or column this build does not know (as a newer relay would add) stops migrate and verify-backup."""
        check = self.report.check
        newer = self.path("newer.sqlite")
        shutil.copy(self.restored, newer)
        connection = sqlite3.connect(newer)
        connection.execute("CREATE TABLE push_tokens (code BLOB PRIMARY KEY, uses INTEGER)")
        connection.execute("INSERT INTO push_tokens VALUES (x'01', 3)")
        connection.commit()
        connection.close()
        refused = self.admin("migrate", "--from", f"sqlite:{newer}", "--to", postgres.url)
        line = refused.stderr.strip().splitlines()[-1] if refused.stderr.strip() else ""
        check(refused.returncode != 0 and "push_tokens" in line,
              "migrate refuses a source holding a table it does not know, naming it", line)
        verified = self.admin("verify-backup", newer)
        line = verified.stderr.strip().splitlines()[-1] if verified.stderr.strip() else ""
        check(verified.returncode != 0 and "push_tokens" in line,
              "verify-backup refuses a file holding a table it does not know, naming it", line)
        widened = self.path("widened.sqlite")
        shutil.copy(self.restored, widened)
        connection = sqlite3.connect(widened)
        connection.execute("ALTER TABLE directory_entries ADD COLUMN suspended_at_ms INTEGER")
        connection.commit()
        connection.close()
        for arguments in (["migrate", "--from", f"sqlite:{widened}", "--to", postgres.url], ["verify-backup", widened]):
            refused = self.admin(*arguments)
            line = refused.stderr.strip().splitlines()[-1] if refused.stderr.strip() else ""
            check(refused.returncode != 0 and "directory_entries.suspended_at_ms" in line,
                  f"{arguments[0]} refuses a column it does not know, naming it", line)

    @staticmethod
    def ref_from_row(ref):
        return MessageRef(encode_token(ref.sender), str(uuid.UUID(bytes=ref.id)))

    def postgres_backup(self, postgres):
        check = self.report.check
        # The test server trusts loopback, so a password in the URL is accepted and ignored: it must not be printed.
        with_password = postgres.url.replace("postgres@", "postgres:s3cret-word@")
        found = self.admin("backup", "--database", with_password)
        check("s3cret-word" not in found.stdout + found.stderr and "PGPASSWORD=******** " in found.stdout,
              "admin backup on PostgreSQL masks the password in the command it prints",
              found.stdout.strip().splitlines()[1].strip() if found.returncode == 0 else found.stderr.strip())
        check(found.returncode == 0 and "/pg_dump --format=custom" in found.stdout,
              "admin backup on PostgreSQL prints the pg_dump command when pg_dump is installed",
              found.stdout.strip().splitlines()[1].strip() if found.returncode == 0 else found.stderr.strip())
        old = self.path("old-pg_dump")
        with open(old, "w") as script:
            script.write("#!/bin/sh\necho 'pg_dump (PostgreSQL) 9.6.24'\n")
        os.chmod(old, 0o755)
        too_old = self.admin("backup", "--database", postgres.url, env={"WOTS_PG_DUMP": old})
        line = too_old.stderr.strip().splitlines()[-1] if too_old.stderr.strip() else ""
        check(too_old.returncode != 0 and "older than the server" in line,
              "admin backup on PostgreSQL refuses a pg_dump older than the server", line)
        missing = self.admin("backup", "--database", postgres.url, env={"WOTS_PG_DUMP": self.path("no-pg_dump")})
        line = missing.stderr.strip().splitlines()[-1] if missing.stderr.strip() else ""
        check(missing.returncode != 0 and "pg_dump is not installed ($WOTS_PG_DUMP names" in line,
              "admin backup on PostgreSQL says so when pg_dump is missing", line)

    def run(self):
        started = time.monotonic()
        try:
            self.backup_under_load()
            self.damaged_copies()
            self.migration()
        finally:
            self.report.info("wall time", f"{time.monotonic() - started:.1f} s")
        return self.report.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--relay-bin", default=os.environ.get("WOTS_RELAY_BIN"), help="the wots-relay executable")
    parser.add_argument("--senders", type=int, default=4, help="concurrent senders during the backup (default 4)")
    parser.add_argument("--load-seconds", type=float, default=2.0, help="sending before the backup starts")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    options = parser.parse_args()
    if not options.relay_bin or not os.access(options.relay_bin, os.X_OK):
        print("check_backup: --relay-bin must name an executable wots-relay", file=sys.stderr)
        return 2
    backups = Backups(options)
    try:
        return backups.run()
    except CannotRun as reason:
        print(f"check_backup: cannot go on: {reason}", file=sys.stderr)
        backups.report.close()
        return 1
    finally:
        if options.keep:
            print(f"kept {backups.folder}")
        else:
            shutil.rmtree(backups.folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
