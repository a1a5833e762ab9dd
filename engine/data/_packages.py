"""The parts of a zip package (Word, OpenDocument, EPUB, slides, spreadsheets), read within bounds, and their XML.

Every part is read within the size its zip entry declares and a budget shared by the whole
package (``max_expanded_mb``).  XML never declares a document type here, so never an entity:
small parts are parsed whole by ``defusedxml``, content parts streamed, by ``defusedxml``'s SAX
parser (:meth:`Parts.stream`) or straight from expat with a document type refused
(:meth:`Parts.scan`, the faster, for spreadsheets' cells).
"""

from __future__ import annotations

import io
import posixpath
import xml.parsers.expat
import xml.sax
import xml.sax.handler
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

import defusedxml.sax
from defusedxml import ElementTree as SafeElementTree
from defusedxml.common import DefusedXmlException

from engine.data._bounds import ZIP_ERRORS
from engine.limits import Limits

_RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}"  # Office packages' (OPC)
PACKAGE_PART_BYTES = 10_000_000  # a package's lists of parts and chapters are parsed whole, so bounded apart


class UnreadableError(Exception):
    """A file's content cannot be read; the message says why and what to do."""


def _suffix(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).suffix.lower()


def _article(kind: str) -> str:
    return "an" if kind[:1].upper() in "AEIOU" else "a"  # an EPUB book, an Excel workbook, a Word document


def relation_id(element) -> str:
    """The relationship id (``r:id``) an element of a main part names its part by, in either schema's namespace."""
    return next((value for key, value in element.attrib.items() if key.endswith("relationships}id")), "")


class Parts:
    """The parts of a document's zip archive, each read within its declared size and a shared budget."""

    def __init__(self, data: bytes, name: str, limits: Limits, kind: str):
        self.name, self.kind, self.limits, self.budget = name, kind, limits, limits.max_expanded_bytes
        if data[:4] == b"\xd0\xcf\x11\xe0":  # an OLE compound file: an encrypted Office file, or an old .doc
            raise UnreadableError(f"is protected by a password, or is an older binary {kind}; open it, save it as "
                              f"{_suffix(name)} without a password, and upload that")
        try:
            self.archive = zipfile.ZipFile(io.BytesIO(data))
        except ZIP_ERRORS as exc:
            raise UnreadableError(f"is damaged or not {_article(kind)} {kind} ({exc}); save it again as "
                                  f"{_suffix(name)}") from None
        self.infos = {info.filename: info for info in self.archive.infolist()}

    def __contains__(self, part: str) -> bool:
        return part in self.infos

    def read(self, part: str) -> bytes:
        info = self.infos.get(part)
        if info is None:
            raise UnreadableError(f"is damaged or not {_article(self.kind)} {self.kind}: it has no part {part!r}; "
                                  "save it again")
        if info.file_size > self.budget:
            raise UnreadableError(f"expands to more than the {self.limits.max_expanded_mb:,.0f} MB the limit "
                              "max_expanded_mb allows (a possible zip bomb); if it is genuine, raise the "
                              "environment variable SVI_TOPICS_MAX_EXPANDED_MB")
        try:
            with self.archive.open(info) as entry:
                data = entry.read(info.file_size + 1)
        except ZIP_ERRORS as exc:
            raise UnreadableError(f"is damaged: its part {part!r} cannot be read ({exc}); save it again") from None
        if len(data) > info.file_size:
            raise UnreadableError(f"has a part {part!r} that expands past the size it declares (a possible zip "
                              "bomb); save it again")
        self.budget -= len(data)
        return data

    def relations(self, part: str) -> dict[str, tuple[str, str]]:
        """A part's relationships (``""`` for the package's own): id -> (type, target part name)."""
        folder = posixpath.dirname(part)
        path = posixpath.join(folder, "_rels", posixpath.basename(part) + ".rels")
        if path not in self:
            return {}
        found = {}
        for relation in self.xml(path).iter(_RELATIONSHIPS + "Relationship"):
            target = unquote(relation.get("Target", ""))
            target = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
            found[relation.get("Id", "")] = (relation.get("Type", ""), posixpath.normpath(target))
        return found

    def main_part(self, default: str) -> str:
        """The package's main part (a document, workbook or presentation): the target of its officeDocument
        relationship (``.../officeDocument`` in the transitional and the strict schema), else ``default``."""
        main = default
        for kind, target in self.relations("").values():
            if kind.endswith("/officeDocument") and target != ".":  # "." : an empty target
                main = target
        return main

    def xml(self, part: str):
        """A small part (a package's list of parts, of chapters) parsed whole."""
        info = self.infos.get(part)
        if info is not None and info.file_size > PACKAGE_PART_BYTES:
            raise UnreadableError(f"is damaged or crafted: its part {part!r} declares {info.file_size:,} bytes, "
                                   f"more than such a part holds ({PACKAGE_PART_BYTES:,}); save it again")
        try:
            return SafeElementTree.fromstring(self.read(part), forbid_dtd=True)
        except (SafeElementTree.ParseError, DefusedXmlException, ValueError) as exc:
            raise UnreadableError(f"is damaged: its part {part!r} is not valid XML ({exc}); save it again") from None

    def stream(self, part: str, handler: xml.sax.handler.ContentHandler) -> None:
        """Stream a part through a SAX ``handler`` (namespaces on): a large part never becomes a tree in memory."""
        parser = defusedxml.sax.make_parser()
        parser.forbid_dtd = True
        parser.setFeature(xml.sax.handler.feature_namespaces, True)
        parser.setContentHandler(handler)
        parser.setErrorHandler(xml.sax.handler.ErrorHandler())  # errors raise
        try:
            parser.parse(io.BytesIO(self.read(part)))
        except (xml.sax.SAXException, DefusedXmlException, ValueError) as exc:
            raise UnreadableError(f"is damaged: its part {part!r} is not valid XML ({exc}); save it again") from None

    def scan(self, part: str, handler: Any) -> None:
        """Stream a part through expat to ``handler.start(name, attributes)``, ``handler.end(name)`` and
        ``handler.text(data)``, with names as ``"namespace local"`` (one space between; attributes a dict).

        Faster than :meth:`stream` (no SAX layer between expat and the handler).  A document type
        declaration, and so any entity, is refused as defusedxml's ``forbid_dtd`` refuses it; an error
        raised by the handler passes through.
        """
        parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
        parser.buffer_text, parser.buffer_size = True, 1 << 16

        def refuse(*_: Any) -> None:
            raise UnreadableError(f"is damaged or crafted: its part {part!r} declares a document type or entities, "
                                  "which its format never holds; save it again")

        parser.StartDoctypeDeclHandler = parser.EntityDeclHandler = parser.UnparsedEntityDeclHandler = refuse
        parser.ExternalEntityRefHandler = refuse
        parser.StartElementHandler, parser.EndElementHandler = handler.start, handler.end
        parser.CharacterDataHandler = handler.text
        try:
            parser.Parse(self.read(part), True)
        except xml.parsers.expat.ExpatError as exc:
            raise UnreadableError(f"is damaged: its part {part!r} is not valid XML ({exc}); save it again") from None

    def text(self, part: str, rules: XmlText) -> str:
        """The text of a part, by ``rules``, streamed (:meth:`stream`)."""
        handler = TextHandler(rules)
        self.stream(part, handler)
        return "".join(handler.out)


@dataclass(frozen=True)
class XmlText:
    """How one XML vocabulary holds text: where text is, what to add, what to skip."""

    texts: frozenset[str]  # elements whose character content is text (Word's run text, ODF's paragraphs)
    inserts: dict[str, str]  # elements read as a fixed string (a tab, a line break)
    breaks: frozenset[str]  # elements followed by a line break (paragraphs, headings)
    skipped: frozenset[str]  # elements left out with everything inside them
    spaces: str = ""  # the element whose "c" attribute counts spaces (ODF's text:s)


class TextHandler(xml.sax.handler.ContentHandler):
    """Collects the text of a streamed XML part by :class:`XmlText`'s rules (memory: the text, not a tree)."""

    def __init__(self, rules: XmlText):
        super().__init__()
        self.rules, self.out = rules, []
        self.skipping = self.taking = 0  # depths inside a skipped element, inside an element of text

    def startElementNS(self, name, qname, attrs) -> None:  # noqa: N802 (SAX's name)
        tag = f"{{{name[0]}}}{name[1]}" if name[0] else name[1]
        if self.skipping or tag in self.rules.skipped:
            self.skipping += 1
            return
        if tag in self.rules.inserts:
            self.out.append(self.rules.inserts[tag])
        elif tag == self.rules.spaces:
            count = next((value for (_, local), value in attrs.items() if local == "c"), "1")
            self.out.append(" " * min(int(count), 1000) if count.isdigit() else " ")
        if tag in self.rules.texts:
            self.taking += 1

    def endElementNS(self, name, qname) -> None:  # noqa: N802 (SAX's name)
        if self.skipping:
            self.skipping -= 1
            return
        tag = f"{{{name[0]}}}{name[1]}" if name[0] else name[1]
        if tag in self.rules.texts:
            self.taking -= 1
        if tag in self.rules.breaks:
            self.out.append("\n")

    def characters(self, content: str) -> None:
        if self.taking and not self.skipping:
            self.out.append(content)
