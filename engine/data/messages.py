"""E-mail and newsgroup messages: found in a collection, and read as what their authors wrote.

A mailbox export, a mailing-list archive or a folder of newsgroup posts keeps each message's
header lines ("Path:", "Message-ID:", "References:", host and user names), the lines it quotes
from earlier messages, the line that introduces them ("In article <...> X writes:") and the
sender's signature.  The token pattern reads all of these as words, and on newsgroup posts most
of the default LDA's topics were made of them ("com net state ohio alt writes article";
benchmarks/RESULTS.md run 64).  :func:`message_text` reads a message
as its subject and the lines its sender wrote; :func:`holds_messages` says whether enough of a
collection's documents are messages for that to be the default.

A document is a message when it starts with a block of header lines ("Name: value", each
continued on lines that start with whitespace) that ends at a blank line (or the text's end),
holds at least :data:`MIN_FIELDS` of the fields every mail or news system writes (From, To,
Subject, Date, Message-ID, Newsgroups...), and holds nothing but header lines; a mailbox's
"From " separator line may come first.  Any other document is read as it is, so a collection
that mixes messages and notes loses only the messages' headers.
"""

from __future__ import annotations

import email
import email.policy
import re
from collections.abc import Iterable, Sequence
from email.header import decode_header, make_header
from typing import NamedTuple

from engine.data.boilerplate import _WORD
from engine.data.markup import evenly_spread, strip_markup

__all__ = ["MessagesReport", "holds_messages", "is_message", "message_text", "messages_report"]

SAMPLE_DOCUMENTS = 500  # documents read by holds_messages, spread evenly over the collection
SAMPLE_CHARACTERS = 100_000  # characters of a message the language guess reads
MESSAGE_SHARE = 0.1  # a collection holds messages when at least this share of its non-empty documents are
MIN_FIELDS = 2  # a header block names at least this many of _MAIL_FIELDS
MAX_HEADER_LINES = 500  # a longer block at a text's start is not read as headers (a message has a few dozen)
MAX_HEADER_LINE = 2000  # characters; a longer line is not a header line (RFC 5322 allows 998)
MAX_ATTRIBUTION_LINES = 3  # "In article <id>," / "X <x@y> writes:": the paragraph before a quote, if this short
MAX_SIGNATURE_LINES = 15  # a signature ("-- " and what follows) is left out when it is at most this long

# fields that mail and news software writes (a message has several); "Title:" or "Note:" are not among them
_MAIL_FIELDS = frozenset(("from", "to", "cc", "bcc", "subject", "date", "message-id", "newsgroups", "path",
                          "references", "in-reply-to", "reply-to", "sender", "received", "return-path",
                          "mime-version", "content-type", "content-transfer-encoding", "delivered-to", "xref",
                          "nntp-posting-host", "followup-to", "x-mailer", "user-agent", "organization"))
_FIELD = re.compile(r"([!-9;-~]+)[ \t]*:")  # RFC 5322: printable ASCII but ":", then the colon
_MBOX_SEPARATOR = re.compile(r"From \S+")  # "From alice@example.org Mon Jan  1 00:00:00 2024" in an mbox file
_QUOTED = re.compile(r"[ \t]*(?:\|\s*)?>")  # "> text", ">> text", "  > text", "|> text"
# "X wrote:", "X writes...": a line that introduces a quote
_ATTRIBUTION_END = re.compile(r"(?:wrote|writes|said|says|schrieb|a écrit|escribió|scrisse)\s*(?::|\.{1,3})\s*$",
                              re.IGNORECASE)
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")  # an e-mail address
_OTHER_MARKS = frozenset(":|}#")  # quoting marks some newsreaders use, read as such only after an attribution
_FORWARD_MARK = re.compile(r"\s*-{3,}\s*(?:Original Message|Forwarded message)\s*-{3,}\s*$", re.IGNORECASE)
_REPLY_PREFIX = re.compile(r"^(?:\s*(?:re|fwd?|aw|sv|vs|wg|tr|antw)\s*(?:\[\d+\])?\s*:)+\s*", re.IGNORECASE)
_SIGNATURE = "--"  # the delimiter line "-- " (RFC 3676), trailing space often lost


def _header_block(text: str) -> tuple[int, int] | None:
    """Where the header block of ``text`` starts (after a mailbox's "From " line) and where the blank line (or the
    text's end) that ends it starts, or None when the text does not start with one (see the module's notes).

    Reads the text line by line, no further than the block: a long document costs what its first lines do.
    """
    position = start = 0
    fields = set()
    for n in range(MAX_HEADER_LINES + 2):
        if position > len(text):
            break
        end = text.find("\n", position, position + MAX_HEADER_LINE + 1)
        if end < 0:
            if len(text) - position > MAX_HEADER_LINE:
                return None  # a line too long for a header
            end = len(text)
        line = text[position:end].rstrip("\r")
        if not line.strip():
            break
        if n == 0 and _MBOX_SEPARATOR.match(line):
            start = end + 1
        elif line[0] in " \t":
            if position == start:
                return None  # a continuation needs a field before it
        else:
            match = _FIELD.match(line)
            if match is None:
                return None
            fields.add(match.group(1).lower())
        position = end + 1
    else:
        return None  # too many lines for headers
    return (start, min(position, len(text))) if len(fields & _MAIL_FIELDS) >= MIN_FIELDS else None


def is_message(text: str) -> bool:
    """Whether ``text`` is an e-mail or newsgroup message: it starts with a block of header lines naming at least
    :data:`MIN_FIELDS` mail fields (see the module's notes)."""
    return isinstance(text, str) and _header_block(text) is not None


def message_text(text: str) -> str:
    """``text`` read as its sender wrote it, if it is a message (:func:`is_message`); else ``text`` as it is.

    The message becomes its subject (without "Re:", "Fwd:" and the like), a blank line and its
    body, where the body loses:

    - every header line (addresses, dates, message ids, paths, software);
    - quoted lines (starting with ">", after any spaces, or "|>"; right after an
      attribution, also ":", "|", "}" or "#") and the paragraph of at most three lines that
      introduces a quote when it ends in "wrote:", "writes:", "said:" and the like ("In
      article <id>, X writes:", "On Monday, X wrote:"), or names an address or starts "In
      article <" and so introduced a quote the sender cut;
    - everything from an "-----Original Message-----" or "---- Forwarded message ----" line
      on (the earlier message, quoted whole);
    - the signature: the lines after the last "-- " line, when there are at most
      fifteen of them.

    A MIME message (a "Content-Type" or "Content-Transfer-Encoding" header) is decoded by the
    standard library's ``email`` package: its plain-text body, or else its HTML body without
    the markup; attachments are not text and are left out.  A body it cannot decode (an
    unknown charset, a broken encoding) is read as the text after the headers.  Line breaks
    become "\\n".
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    if _header_block(text) is None:
        return text
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    block = _header_block(normalised)  # the same lines, found again in the normalised text
    if block is None:  # a lone "\r" inside a line made it another text: read it as it is
        return text
    text = normalised
    start, end = block
    headers, body = text[start:end].rstrip("\n"), text[end + 1:].split("\n")
    body = _decoded_body(headers, body) if _is_mime(headers) else body
    subject = _REPLY_PREFIX.sub("", header_values(headers, ("subject",))[0])
    kept = "\n".join(_without_signature(_without_quotes(body))).strip("\n")
    return f"{subject}\n\n{kept}" if subject and kept else subject or kept


def _is_mime(headers: str) -> bool:
    return re.search(r"^content-(?:type|transfer-encoding)[ \t]*:", headers, re.IGNORECASE | re.MULTILINE) is not None


def header_values(headers: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """The values of the fields ``names`` (lower case) in a block of header lines, "" where absent: the first line
    of each field, its continuation lines joined, whitespace collapsed and encoded words ("=?utf-8?q?Caf=C3=A9?=")
    decoded; otherwise as written (an address keeps its comment, a date its form)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in headers.split("\n"):
        if line[:1] in (" ", "\t"):
            if current is not None:
                current.append(line)
            continue
        name, colon, value = line.partition(":")
        current = None
        if colon and name.strip().lower() in names and name.strip().lower() not in found:
            current = found[name.strip().lower()] = [value]
    return tuple(_decoded(" ".join(" ".join(found.get(name, [""])).split())) for name in names)


def _decoded(value: str) -> str:
    """``value`` with its encoded words decoded by the standard library (as written if they are broken)."""
    if "=?" not in value:
        return value
    try:
        return " ".join(str(make_header(decode_header(value))).split())
    except Exception:  # an unknown charset or a broken encoding in hostile input: the value as written
        return value


def _decoded_body(headers: str, body: list[str]) -> list[str]:
    """The MIME message's text: its plain-text part, else its HTML part without markup; ``body`` as it is when the
    standard library cannot decode it."""
    try:
        message = email.message_from_string(headers + "\n\n" + "\n".join(body), policy=email.policy.default)
        part = message.get_body(preferencelist=("plain", "html"))
        if part is None:
            return [] if message.is_multipart() or message.get_content_maintype() != "text" else body
        content = part.get_content()
        if not isinstance(content, str):
            return body
        if part.get_content_subtype() == "html":
            content = strip_markup(content)
    except Exception:  # hostile or broken MIME (unknown charset, bad base64): keep the raw text
        return body
    return content.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _without_quotes(lines: list[str]) -> list[str]:
    """``lines`` without quoted lines, the short paragraph introducing each quote, and a forwarded original.

    A line starting with ">" (after spaces) is quoted.  Right after an attribution ("X wrote:"),
    a line starting with another quoting mark (":", "|", "}" or "#") is too, with the lines
    after it that start with the same mark; elsewhere such lines are the sender's own (a table,
    a comment in code).  An "In article <id>, X writes..." paragraph goes even with no quote
    after it (the sender cut the quote and kept its attribution), and so does such a paragraph
    naming an address ("bob@example.org writes:").
    """
    kept: list[str] = []
    marker = None  # the quoting mark of the quote being read, after an attribution
    for line in lines:
        if _FORWARD_MARK.match(line):
            break
        stripped = line.lstrip()
        if marker is not None:
            if stripped.startswith(marker):
                continue
            if stripped:
                marker = None
        if _QUOTED.match(line):
            _drop_attribution(kept)
            continue
        if stripped[:1] in _OTHER_MARKS and _drop_attribution(kept):
            marker = stripped[0]
            continue
        kept.append(line)
    return _without_article_lines(kept)


def _without_article_lines(kept: list[str]) -> list[str]:
    """``kept`` without the paragraphs of at most ``MAX_ATTRIBUTION_LINES`` lines that start "In article <" or hold
    an address, and end in "writes:" or the like: attributions whose quote was cut."""
    out: list[str] = []
    start = 0
    while start < len(kept):
        end = start
        while end < len(kept) and kept[end].strip():
            end += 1
        paragraph = kept[start:end]
        if not (0 < len(paragraph) <= MAX_ATTRIBUTION_LINES and _ATTRIBUTION_END.search(paragraph[-1])
                and (paragraph[0].lstrip().startswith("In article <") or any(map(_ADDRESS.search, paragraph)))):
            out.extend(paragraph)
        if end < len(kept):
            out.append(kept[end])  # the blank line after it
        start = end + 1
    return out


def _drop_attribution(kept: list[str]) -> bool:
    """Remove from the end of ``kept`` the paragraph that introduces a quote, if it is one (see message_text): at
    most ``MAX_ATTRIBUTION_LINES`` lines ending in "wrote:" or the like, at most two blank lines above the quote.
    Looks at a bounded number of lines, so a text of many quotes is read in linear time.  Returns whether it
    removed one."""
    last = len(kept)
    while last > 0 and last > len(kept) - 2 and not kept[last - 1].strip():
        last -= 1
    if last == 0 or not kept[last - 1].strip() or not _ATTRIBUTION_END.search(kept[last - 1]):
        return False
    first = last - 1
    while first > 0 and first > last - MAX_ATTRIBUTION_LINES - 1 and kept[first - 1].strip():
        first -= 1
    if last - first > MAX_ATTRIBUTION_LINES or (first > 0 and kept[first - 1].strip()):
        return False
    del kept[first:]
    return True


def _without_signature(lines: list[str]) -> list[str]:
    for i in range(len(lines) - 1, max(-1, len(lines) - MAX_SIGNATURE_LINES - 2), -1):
        if lines[i].rstrip() == _SIGNATURE:
            return lines[:i]
    return lines


def holds_messages(texts: Sequence[str]) -> bool:
    """Whether ``texts`` should be read as messages: at least ``MESSAGE_SHARE`` of the sampled non-empty documents
    are (:func:`is_message`).

    Reads at most ``SAMPLE_DOCUMENTS`` documents spread evenly over the collection, so it costs
    the same on any collection.
    """
    sample = [text for text in (texts[i] for i in evenly_spread(len(texts), SAMPLE_DOCUMENTS))
              if isinstance(text, str) and text.strip()]
    return bool(sample) and sum(map(is_message, sample)) >= MESSAGE_SHARE * len(sample)


class MessagesReport(NamedTuple):
    """What :func:`message_text` takes out of a collection: what a reader of it should see was left out."""

    messages: int  # texts read as messages
    words_removed: int  # words of their headers, quotes and signatures (the subject is kept)
    words: int  # words in all the texts


def messages_report(texts: Iterable[str]) -> MessagesReport:
    """How many of ``texts`` :func:`message_text` reads as messages and the words it leaves out of them.

    Words are counted as :func:`engine.boilerplate_report` counts them (runs of two letters
    or more, each Chinese or Japanese character); a MIME body counts as written (base64 and
    all) against its decoded text.
    """
    n_messages = removed = total = 0
    for text in texts:
        words = len(_WORD.findall(text))
        total += words
        if is_message(text):
            n_messages += 1
            removed += max(0, words - len(_WORD.findall(message_text(text))))
    return MessagesReport(n_messages, removed, total)
