#!/usr/bin/env python3
r"""The "C SQLite baseline" of grove's benchmark harness.

It does the work of `grove index` (archive.IndexFile) with Python's built-in
sqlite3 module, which wraps the C SQLite library, so that grove's indexing
speed can be printed as a ratio to it. Standard library only.

Usage:

    python3 baseline.py --db OUT.db FILE_OR_DIR... [--query Q]...

    OUT.db      a fresh database file; it is deleted first (with its -wal
                and -shm files) when it exists
    FILE_OR_DIR session files, indexed whatever their name, or directories
                walked recursively for *.jsonl (sorted by path, symlinked
                directories not followed)
    --query Q   an FTS5 MATCH expression (already in FTS5 syntax), repeatable;
                after indexing each one is run five times as
                SELECT rowid FROM entry_text WHERE entry_text MATCH ?
                ORDER BY rowid DESC LIMIT 20
                and its median time in ms is reported

Output: one JSON object on stdout, e.g.

    {"files": 1, "entries": 1018, "bytes": 974031, "bad_lines": 0,
     "seconds": 0.0535, "mb_per_s": 18.2, "entries_per_s": 19034.0,
     "db_bytes": 507904, "sqlite_version": "3.40.1", "peak_rss_kb": 20872,
     "contentless_delete": false, "note": "...", "queries": {"mode": 0.03}}

"seconds" is the wall time of the indexing: finding the files, reading,
parsing and storing them, one transaction per file. Schema creation, the
final WAL checkpoint and the queries are not in it. MB are 10^6 bytes, as in
Go's benchmarks. "bytes" is the size of every file read, tails included.
"bad_lines" counts every line grove would report as a bad line: invalid
UTF-8, a BOM or NUL inside a line, invalid JSON, not an object, or an entry
that breaks the dialect's schema. Files that cannot be read (or are not
regular files) are reported on stderr and skipped; the script never stops
for a damaged file. "queries" appears only with --query (null for a query
SQLite rejects; its error goes to stderr). When the SQLite library is older
than 3.43, the FTS5 table is created without contentless_delete=1,
"contentless_delete" is false and "note" says so.

What is mirrored, per file (see jsonl/reader.go, jsonl/schema.go,
jsonl/text.go, index/text.go, index/ingest.go, archive/ingest.go):

  - lines split on LF only; a last line without LF is never parsed; a BOM
    at byte 0 is skipped; lines of JSON whitespace only are skipped;
  - the dialect is decided by the first parseable line ({"type":"session"}
    makes a pi file whose header is no entry; an oh-my-pi title line before
    it is dropped); pi version 1 gets synthetic ids "L<line>" chained to the
    previous entry; the required fields of each pi entry type and of plain
    message/metadata entries are checked as grove checks them;
  - per entry: id, parentId, type, message.role, timestamp (Unix ms), line
    number, byte offset, byte length, CRC-32 of the line's bytes, and a doc
    number (timestamp seconds << 31 | index-wide counter) used as the FTS
    rowid, as index.DocNumber computes it;
  - the search text of jsonl.AppendSearchText, base64 data skipped, with
    every CJK character set apart by spaces (index.ftsText; the ranges are
    Go's unicode.Han, Hiragana, Katakana and Hangul tables, Unicode 15.0).

Not mirrored (grove does more per file, so the ratio slightly favours this
baseline): grove's sessions columns besides path and entries, diagnostics
and labels rows, the active-path column, the SQL that finds duplicate ids
and counts leaves, and the stat check that skips unchanged files (the
baseline database is always fresh). Two differences in search text, absent
from the sample pi session and generated corpora (their FTS5 tokens are
identical to grove's): an object with a key given twice keeps
only its last value here, where grove's text walk takes every value of a
custom entry's data or a tool call's arguments; and keys or type/role
values written with \u escapes match here, where grove's text walk
compares them as written.
"""

import argparse
import json
import os
import re
import resource
import sqlite3
import stat
import sys
import time
import zlib
from datetime import datetime, timedelta, timezone

# encoding/json (and grove's validator) accept 10,000 nested arrays and
# objects, no more. Python's json module counts them against the recursion
# limit, so that is raised a little above, and parse_object checks lines
# that parsed with more.
MAX_DEPTH = 10_000
sys.setrecursionlimit(MAX_DEPTH + 500)

BOM = b"\xef\xbb\xbf"
MAX_SAFE_INT = (1 << 53) - 1
DOC_BITS = 31
DOC_MASK = (1 << DOC_BITS) - 1
MAX_SEC = (1 << 32) - 1
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
ONE_MS = timedelta(milliseconds=1)

# What Go's time.Parse(time.RFC3339Nano, s) accepts (its general parser,
# after the strict parseRFC3339 fails): a one-digit hour, a fraction after
# '.' or ',' of any length, and a zone Z or ±hh:mm. Ranges are checked in
# _iso_ms_exact.
RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))?(Z|([+-])([0-9]{2}):([0-9]{2}))"
)
BASE64_BODY = re.compile(r"[A-Za-z0-9+/_-]*")
SURROGATE = re.compile("[\ud800-\udfff]")

# index.isCJK: unicode.Han, Hiragana, Katakana and Hangul from U+1100 up, as
# Go's unicode tables (Unicode 15.0.0) define them.
CJK_RANGES = (
    (0x1100, 0x11FF), (0x2E80, 0x2E99), (0x2E9B, 0x2EF3), (0x2F00, 0x2FD5),
    (0x3005, 0x3005), (0x3007, 0x3007), (0x3021, 0x3029), (0x302E, 0x302F),
    (0x3038, 0x303B), (0x3041, 0x3096), (0x309D, 0x309F), (0x30A1, 0x30FA),
    (0x30FD, 0x30FF), (0x3131, 0x318E), (0x31F0, 0x321E), (0x3260, 0x327E),
    (0x32D0, 0x32FE), (0x3300, 0x3357), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
    (0xA960, 0xA97C), (0xAC00, 0xD7A3), (0xD7B0, 0xD7C6), (0xD7CB, 0xD7FB),
    (0xF900, 0xFA6D), (0xFA70, 0xFAD9), (0xFF66, 0xFF6F), (0xFF71, 0xFF9D),
    (0xFFA0, 0xFFBE), (0xFFC2, 0xFFC7), (0xFFCA, 0xFFCF), (0xFFD2, 0xFFD7),
    (0xFFDA, 0xFFDC), (0x16FE2, 0x16FE3), (0x16FF0, 0x16FF1),
    (0x1AFF0, 0x1AFF3), (0x1AFF5, 0x1AFFB), (0x1AFFD, 0x1AFFE),
    (0x1B000, 0x1B122), (0x1B132, 0x1B132), (0x1B150, 0x1B152),
    (0x1B155, 0x1B155), (0x1B164, 0x1B167), (0x1F200, 0x1F200),
    (0x20000, 0x2A6DF), (0x2A700, 0x2B739), (0x2B740, 0x2B81D),
    (0x2B820, 0x2CEA1), (0x2CEB0, 0x2EBE0), (0x2F800, 0x2FA1D),
    (0x30000, 0x3134A), (0x31350, 0x323AF),
)
CJK = re.compile(
    "(["
    + "".join("\\U%08x-\\U%08x" % (lo, hi) if lo != hi else "\\U%08x" % lo for lo, hi in CJK_RANGES)
    + "])"
)


class BadLine(Exception):
    """A committed line that grove reports as a bad line."""


def _no_constant(name):
    raise ValueError("not JSON: " + name)  # NaN, Infinity, -Infinity


def _big_int(digits):
    # Python refuses int() of more than 4300 digits; such a number is valid
    # JSON all the same, and only its kind matters here.
    return int(digits) if len(digits) < 4000 else float(digits)


_decode = json.JSONDecoder(parse_constant=_no_constant).decode
_decode_big = json.JSONDecoder(parse_constant=_no_constant, parse_int=_big_int).decode


def parse_object(b):
    """jsonl.parseObject: valid UTF-8, no BOM or NUL, one JSON object."""
    try:
        s = b.decode("utf-8")  # strict: also rejects encoded surrogates
    except UnicodeDecodeError:
        raise BadLine("invalid UTF-8") from None
    if "\ufeff" in s:
        raise BadLine("byte order mark inside a line")
    if "\x00" in s:
        raise BadLine("NUL byte")
    try:
        o = _decode(s)
    except json.JSONDecodeError:
        raise BadLine("invalid JSON") from None
    except RecursionError:
        raise BadLine("invalid JSON: exceeded max depth") from None
    except ValueError:  # NaN or Infinity, or an integer of over 4300 digits
        try:
            o = _decode_big(s)
        except (ValueError, RecursionError):
            raise BadLine("invalid JSON") from None
    if type(o) is not dict:
        raise BadLine("not an object")
    # More than MAX_DEPTH nested containers needs that many brackets.
    if len(s) > 2 * MAX_DEPTH and s.count("[") + s.count("{") > MAX_DEPTH and nesting(o) > MAX_DEPTH:
        raise BadLine("invalid JSON: exceeded max depth")
    return o


def nesting(v):
    """The deepest level of nested arrays and objects in v (v itself is 1)."""
    deepest = 0
    stack = [(v, 1)]
    while stack:
        v, level = stack.pop()
        if level > deepest:
            deepest = level
        children = v.values() if type(v) is dict else v
        for c in children:
            if type(c) is dict or type(c) is list:
                stack.append((c, level + 1))
    return deepest


# --- the search text (jsonl.AppendSearchText) -----------------------------


def is_base64ish(s):
    # ";base64," within the first 128 bytes (UTF-8) of a data: URI.
    if s.startswith("data:") and b";base64," in s[:128].encode("utf-8", "surrogatepass")[:128]:
        return True
    if len(s) < 256:
        return False
    return BASE64_BODY.fullmatch(s.rstrip("=")) is not None


def add_string(out, v):
    if type(v) is str and v and not is_base64ish(v):
        out.append(v)


def add_strings(out, v, depth):
    if depth > 64:
        return
    t = type(v)
    if t is str:
        add_string(out, v)
    elif t is dict:
        for x in v.values():
            add_strings(out, x, depth + 1)
    elif t is list:
        for x in v:
            add_strings(out, x, depth + 1)


def add_content(out, content):
    t = type(content)
    if t is str:
        add_string(out, content)
        return
    if t is not list:
        return
    for block in content:
        if type(block) is not dict:
            continue
        bt = block.get("type")
        if bt == "text":
            add_string(out, block.get("text"))
        elif bt == "thinking":
            add_string(out, block.get("thinking"))
        elif bt == "toolCall":
            add_string(out, block.get("name"))
            add_strings(out, block.get("arguments"), 0)


def search_text(o, typ):
    out = []
    if typ == "message":
        msg = o.get("message")
        if type(msg) is dict:
            role = msg.get("role")
            if role == "bashExecution":
                add_string(out, msg.get("command"))
                add_string(out, msg.get("output"))
            elif role == "branchSummary" or role == "compactionSummary":
                add_string(out, msg.get("summary"))
            else:
                add_content(out, msg.get("content"))
    elif typ == "compaction" or typ == "branch_summary":
        add_string(out, o.get("summary"))
    elif typ == "custom_message":
        add_content(out, o.get("content"))
    elif typ == "custom":
        add_strings(out, o.get("data"), 0)
    elif typ == "session_info":
        add_string(out, o.get("name"))
    elif typ == "label":
        add_string(out, o.get("label"))
    elif typ == "metadata":
        add_string(out, o.get("value"))
    if not out:
        return None
    return "\n".join(out) + "\n"


def fts_text(text):
    """index.ftsText: CJK characters stand apart; a lone surrogate (from a
    \\uD800 escape) becomes U+FFFD as grove's unquote makes it."""
    if text.isascii():
        return text
    text = SURROGATE.sub("\ufffd", text)
    # split keeps each CJK character as its own part (the pattern captures
    # it); joining the parts with spaces sets every one apart, all in C.
    return " ".join(CJK.split(text))


# --- the dialects (jsonl/reader.go, jsonl/schema.go) ----------------------

PI_REQUIRED = {
    "message": (("message", dict),),
    "thinking_level_change": (("thinkingLevel", str),),
    "model_change": (("provider", str), ("modelId", str)),
    "compaction": (("summary", str),),
    "branch_summary": (("fromId", str), ("summary", str)),
    "custom": (("customType", str),),
    "custom_message": (("customType", str),),
    "label": (("targetId", str),),
    "session_info": (),
}


def iso_ms(v):
    """jsonl.parseISOTime: Unix ms of an RFC 3339 string, or None."""
    if type(v) is not str:
        return None
    m = RFC3339.fullmatch(v)
    if m is None:
        return None
    try:
        # Fast, in C; its ranges are Go's or stricter.
        return (datetime.fromisoformat(v) - EPOCH) // ONE_MS
    except (ValueError, OverflowError):
        # Year 0, dates near years 1 and 9999, a one-digit hour, zone
        # offsets of 24 hours or 60 minutes: Go still reads those.
        return _iso_ms_exact(m)


def _days_in(month, year):
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _iso_ms_exact(m):
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    if not (1 <= mo <= 12 and 1 <= d <= _days_in(mo, y) and h <= 23 and mi <= 59 and sec <= 59):
        return None
    off = 0
    if m.group(8) != "Z":
        oh, om = int(m.group(10)), int(m.group(11))
        if oh > 24 or om > 60:
            return None
        off = (oh * 60 + om) * 60 * (-1 if m.group(9) == "-" else 1)
    ns = int(((m.group(7) or "")[:9]).ljust(9, "0"))
    # Days since 1970-01-01 in the proleptic Gregorian calendar (year 0 is a
    # leap year), Howard Hinnant's days_from_civil.
    yy = y - (mo <= 2)
    era = yy // 400
    yoe = yy - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return (days * 86400 + h * 3600 + mi * 60 + sec - off) * 1000 + ns // 1_000_000


def want_str(o, key):
    v = o.get(key)
    if type(v) is not str:
        raise BadLine(key + ": want a string")
    return v


def opt_str(o, key):
    v = o.get(key)
    if v is None:
        return ""
    if type(v) is not str:
        raise BadLine(key + ": want a string or null")
    return v


def parent_of(o):
    if "parentId" not in o:
        raise BadLine("parentId: missing")
    p = o["parentId"]
    if p is None or type(p) is str:
        return p
    raise BadLine("parentId: want a string or null")


def check_blocks(c, allowed):
    if type(c) is not list:
        raise BadLine("content: want an array")
    for b in c:
        if type(b) is not dict:
            raise BadLine("content block: want an object")
        t = want_str(b, "type")
        if t not in allowed:
            raise BadLine("content block type not allowed")
        if t == "text":
            want_str(b, "text")
        elif t == "thinking":
            want_str(b, "thinking")
        elif t == "image":
            want_str(b, "data")
            want_str(b, "mimeType")
        elif t == "toolCall":
            want_str(b, "id")
            want_str(b, "name")
            if type(b.get("arguments")) is not dict:
                raise BadLine("arguments: want an object")


def check_plain_message(msg):
    if type(msg) is not dict:
        raise BadLine("message: want an object")
    role = want_str(msg, "role")
    if role == "user":
        if "content" not in msg:
            raise BadLine("message.content: missing")
        c = msg["content"]
        if type(c) is not str:
            check_blocks(c, ("text", "image"))
    elif role == "assistant":
        check_blocks(msg.get("content"), ("text", "thinking", "toolCall"))
    elif role == "toolResult":
        want_str(msg, "toolCallId")
        want_str(msg, "toolName")
        if type(msg.get("isError")) is not bool:
            raise BadLine("message.isError: want a boolean")
        check_blocks(msg.get("content"), ("text", "image"))
    else:
        raise BadLine("message.role: want user, assistant or toolResult")
    return role


class FileParser:
    """The rules of jsonl's parser for one file; rows collects, per entry,
    (entry_id, parent_id, type, role, ts_ms, line, offset, length, crc,
    text)."""

    def __init__(self):
        self.rows = []
        self.bad = 0
        self.dialect = None  # "pi" or "plain" once decided
        self.title = None  # (num, offset, bytes, object) of a pending title line
        self.header = False
        self.header_ms = 0
        self.version = 0
        self.prev_id = None

    def line(self, num, off, b):
        try:
            o = parse_object(b)
        except BadLine:
            self.flush_title()
            self.bad += 1
            return
        typ = o.get("type")
        if type(typ) is not str:
            typ = ""
        if self.dialect is None:
            if self.title is None and typ == "title":
                self.title = (num, off, b, o)
                return
            if typ == "session":
                self.dialect = "pi"
                self.title = None
                self.take_header(o)
                return
            self.dialect = "plain"
            self.flush_title()
        try:
            if self.dialect == "pi":
                row = self.pi_entry(o, typ, num)
            else:
                row = self.plain_entry(o)
        except BadLine:
            self.bad += 1
            return
        if row is not None:
            self.emit(num, off, b, o, row)

    def flush_title(self):
        if self.title is None:
            return
        num, off, b, o = self.title
        self.title = None
        self.dialect = "plain"
        try:
            row = self.plain_entry(o)
        except BadLine:
            self.bad += 1
            return
        self.emit(num, off, b, o, row)

    def emit(self, num, off, b, o, row):
        entry_id, parent_id, typ, role, ts = row
        self.rows.append((entry_id, parent_id, typ, role, ts, num, off, len(b), zlib.crc32(b), search_text(o, typ)))

    def take_header(self, o):
        try:
            hid = want_str(o, "id")
            if not hid:
                raise BadLine("session header: id is empty")
            version = 1
            if "version" in o:
                v = o["version"]
                if type(v) is not int or v < 1 or v >= 1 << 63:
                    raise BadLine("session header: version: want a positive integer")
                version = v
            # cwd, parentSession: read by grove without consequence for the index rows.
        except BadLine:
            self.bad += 1
            return
        self.version = version
        self.header = True
        self.header_ms = iso_ms(o.get("timestamp")) or 0

    def pi_entry(self, o, typ, num):
        if typ == "session":
            if not self.header:  # the first header was bad; take this one
                self.take_header(o)
            return None  # a second header is ignored (a warning)
        if self.version == 0:
            self.version = 3
        want_str(o, "type")
        if self.version == 1:
            entry_id = "L%d" % num
            parent_id = self.prev_id
        else:
            entry_id = want_str(o, "id")
            if not entry_id:
                raise BadLine("id: is empty")
            parent_id = parent_of(o)
        for key, kind in PI_REQUIRED.get(typ, ()):
            if type(o.get(key)) is not kind:
                raise BadLine(typ + " entry: " + key)
        role = None
        if typ == "message":
            role = want_str(o["message"], "role")
        elif typ == "compaction":
            if self.version != 1:
                want_str(o, "firstKeptEntryId")
        elif typ == "label":
            opt_str(o, "label")
        elif typ == "session_info":
            opt_str(o, "name")
        ts = iso_ms(o.get("timestamp"))
        if self.version == 1:
            self.prev_id = entry_id
        return entry_id, parent_id, typ, role, ts

    def plain_entry(self, o):
        entry_id = want_str(o, "id")
        if not entry_id:
            raise BadLine("id: is empty")
        parent_id = parent_of(o)
        t = o.get("timestamp")
        if type(t) is not int and type(t) is not float:
            raise BadLine("timestamp: want a number")
        try:
            f = float(t)
        except OverflowError:
            raise BadLine("timestamp: not a finite number") from None
        if f != f or f in (float("inf"), float("-inf")):
            raise BadLine("timestamp: not a finite number")
        if f > MAX_SAFE_INT or f < -MAX_SAFE_INT:
            raise BadLine("timestamp: outside ±(2^53−1) ms")
        ts = int(f)
        typ = want_str(o, "type")
        role = None
        if typ == "message":
            role = check_plain_message(o.get("message"))
        elif typ == "metadata":
            if not want_str(o, "key"):
                raise BadLine("key: is empty")
            if "value" not in o:
                raise BadLine("value: missing")
        else:
            raise BadLine("type: want message or metadata (plain dialect)")
        return entry_id, parent_id, typ, role, ts


def read_session(path):
    """Parses one session file. Returns (rows, bad lines, bytes read,
    session creation ms or None)."""
    p = FileParser()
    size = 0
    off = 0
    num = 0
    with open(path, "rb") as f:
        for raw in f:  # binary files split on LF only
            size += len(raw)
            if raw[-1:] != b"\n":
                break  # the tail: never parsed
            num += 1
            b = raw[:-1]
            body = off
            off += len(raw)
            if body == 0 and b.startswith(BOM):
                b = b[3:]
                body = 3
            if not b.strip(b" \t\r\n"):
                continue
            p.line(num, body, b)
        size += len(f.read())  # nothing left unless the loop broke early
    p.flush_title()
    created = None
    if p.header and p.header_ms:
        created = p.header_ms
    else:
        times = [r[4] for r in p.rows if r[4] is not None]
        if times:
            created = min(times)
    return p.rows, p.bad, size, created


def doc_number(ts_ms, k):
    """index.DocNumber."""
    sec = ts_ms // 1000 if ts_ms > 0 else 0
    if sec > MAX_SEC:
        sec = MAX_SEC
    return (sec << DOC_BITS) | (k & DOC_MASK)


# --- storage ---------------------------------------------------------------

SCHEMA = """
CREATE TABLE sessions (
  sid     INTEGER PRIMARY KEY,
  path    TEXT    NOT NULL UNIQUE,
  entries INTEGER NOT NULL
);
CREATE TABLE entries (
  sid       INTEGER NOT NULL,
  seq       INTEGER NOT NULL,
  entry_id  TEXT    NOT NULL,
  parent_id TEXT,
  type      TEXT    NOT NULL,
  role      TEXT,
  ts        INTEGER,
  line      INTEGER NOT NULL,
  offset    INTEGER NOT NULL,
  length    INTEGER NOT NULL,
  crc       INTEGER NOT NULL,
  doc       INTEGER NOT NULL,
  PRIMARY KEY (sid, seq)
) WITHOUT ROWID;
CREATE INDEX entries_by_id ON entries(sid, entry_id);
CREATE INDEX entries_by_parent ON entries(sid, parent_id);
CREATE INDEX entries_by_doc ON entries(doc);
CREATE INDEX entries_by_entry_id ON entries(entry_id);
"""

FTS = "CREATE VIRTUAL TABLE entry_text USING fts5(text, content = ''%s, tokenize = 'unicode61 remove_diacritics 2')"


def open_db(path):
    for p in (path, path + "-wal", path + "-shm", path + "-journal"):
        try:
            os.remove(p)
        except FileNotFoundError:
            pass
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(SCHEMA)
    try:
        db.execute(FTS % ", contentless_delete = 1")
        contentless_delete = True
    except sqlite3.OperationalError:  # SQLite < 3.43
        db.execute(FTS % "")
        contentless_delete = False
    return db, contentless_delete


def find_files(args):
    files, seen = [], set()
    for a in args:
        if os.path.isdir(a):
            found = []
            for root, _dirs, names in os.walk(a, onerror=lambda e: print("baseline: %s" % e, file=sys.stderr)):
                for n in names:
                    if n.endswith(".jsonl"):
                        found.append(os.path.join(root, n))
            found = sorted(os.path.abspath(f) for f in found)
        else:
            found = [os.path.abspath(a)]
        for f in found:
            if f not in seen:
                seen.add(f)
                files.append(f)
    return files


def index(db, files):
    totals = {"files": 0, "entries": 0, "bytes": 0, "bad_lines": 0}
    k = 0  # the index-wide doc counter
    ins_session = "INSERT INTO sessions (path, entries) VALUES (?, ?)"
    ins_entry = ("INSERT INTO entries (sid, seq, entry_id, parent_id, type, role, ts, line, offset, length, crc, doc)"
                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    ins_text = "INSERT INTO entry_text (rowid, text) VALUES (?, ?)"
    for path in files:
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):
                print("baseline: %s: not a regular file, skipped" % path, file=sys.stderr)
                continue
            rows, bad, size, created = read_session(path)
        except OSError as e:
            print("baseline: %s: %s, skipped" % (path, e.strerror or e), file=sys.stderr)
            continue
        fallback = created or 0
        entries, texts = [], []
        for seq, (eid, pid, typ, role, ts, line, off, length, crc, text) in enumerate(rows):
            doc = doc_number(fallback if ts is None else ts, k + seq)
            entries.append((seq, eid, pid, typ, role, ts, line, off, length, crc, doc))
            if text is not None:
                texts.append((doc, fts_text(text)))
        k += len(rows)
        try:
            path.encode("utf-8")
            db_path = path
        except UnicodeEncodeError:  # a file name that is not UTF-8: its bytes
            db_path = os.fsencode(path)
        db.execute("BEGIN IMMEDIATE")
        try:
            sid = db.execute(ins_session, (db_path, len(rows))).lastrowid
            db.executemany(ins_entry, [(sid,) + e for e in entries])
            db.executemany(ins_text, texts)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        totals["files"] += 1
        totals["entries"] += len(rows)
        totals["bytes"] += size
        totals["bad_lines"] += bad
    return totals


def time_queries(db, queries):
    sql = "SELECT rowid FROM entry_text WHERE entry_text MATCH ? ORDER BY rowid DESC LIMIT 20"
    out = {}
    for q in queries:
        times = []
        try:
            for _ in range(5):
                t0 = time.perf_counter()
                db.execute(sql, (q,)).fetchall()
                times.append((time.perf_counter() - t0) * 1000)
        except (sqlite3.Error, UnicodeError) as e:
            print("baseline: query %r: %s" % (q, e), file=sys.stderr)
            out[q] = None
            continue
        times.sort()
        out[q] = round(times[len(times) // 2], 4)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description="Index session files with Python's C SQLite: grove's benchmark baseline.")
    ap.add_argument("--db", required=True, help="database file to create (deleted first if it exists)")
    ap.add_argument("--query", action="append", default=[], metavar="Q", help="FTS5 MATCH query to time after indexing (repeatable)")
    ap.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    args = ap.parse_args(argv)

    db, contentless_delete = open_db(args.db)
    try:
        t0 = time.perf_counter()
        totals = index(db, find_files(args.paths))
        seconds = time.perf_counter() - t0
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        db_bytes = 0
        for p in (args.db, args.db + "-wal"):
            try:
                db_bytes += os.path.getsize(p)
            except OSError:
                pass
        queries = time_queries(db, args.query) if args.query else None
    finally:
        db.close()

    out = dict(totals)
    out["seconds"] = round(seconds, 6)
    out["mb_per_s"] = round(totals["bytes"] / 1e6 / seconds, 3) if seconds > 0 else None
    out["entries_per_s"] = round(totals["entries"] / seconds, 1) if seconds > 0 else None
    out["db_bytes"] = db_bytes
    out["sqlite_version"] = sqlite3.sqlite_version
    out["peak_rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out["contentless_delete"] = contentless_delete
    if not contentless_delete:
        out["note"] = ("SQLite %s predates contentless_delete (3.43): entry_text is content='' without it"
                       % sqlite3.sqlite_version)
    if queries is not None:
        out["queries"] = queries
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
