"""Small PDF, Word, OpenDocument, EPUB and spreadsheet files written from scratch, so tests know their content.

Each writer follows the format's specification with the fewest parts a reader needs; the PDF
writer places lines of text on pages with a standard font (Helvetica), as a word processor's
export does, with a correct cross-reference table.
"""

from __future__ import annotations

import io
import random
import zipfile
from xml.sax.saxutils import escape


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def make_pdf(pages: list[list[str]], *, info_title: str | None = None) -> bytes:
    """A PDF whose page i shows the lines ``pages[i]`` from the top (Latin-1 text, Helvetica 11 pt)."""
    objects: list[bytes] = []
    n_pages = len(pages)
    font_id = 3 + 2 * n_pages
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    for i, lines in enumerate(pages):
        content = "BT /F1 11 Tf 14 TL 72 760 Td " + " ".join(f"{_pdf_string(line)} Tj T*" for line in lines) + " ET"
        stream = content.encode("latin-1")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 "
                       f"{font_id} 0 R >> >> /Contents {4 + 2 * i} 0 R >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    if info_title is not None:
        objects.append(f"<< /Title {_pdf_string(info_title)} >>".encode("latin-1"))
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    info = f" /Info {len(objects)} 0 R" if info_title is not None else ""
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{info} >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def _zip(parts: dict[str, str | bytes], first: tuple[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        if first is not None:  # EPUB and ODF: the mimetype entry first, stored
            archive.writestr(zipfile.ZipInfo(first[0]), first[1], compress_type=zipfile.ZIP_STORED)
        for name, data in parts.items():
            archive.writestr(name, data)
    return out.getvalue()


W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def word_paragraph(text: str) -> str:
    """A Word paragraph of one run (tabs in ``text`` become <w:tab/>)."""
    runs = "<w:tab/>".join(f'<w:t xml:space="preserve">{escape(part)}</w:t>' for part in text.split("\t"))
    return f"<w:p><w:r>{runs}</w:r></w:p>"


def make_docx(body_xml: str, *, footnotes_xml: str | None = None, main: str = "word/document.xml") -> bytes:
    """A .docx whose document body is ``body_xml`` (``<w:p>`` elements), with optional footnotes."""
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{W}" '
                'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
                f"<w:body>{body_xml}</w:body></w:document>")
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                               'content-types"/>',
        "_rels/.rels": ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                        'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
                        f'officeDocument/2006/relationships/officeDocument" Target="{main}"/></Relationships>'),
        main: document,
    }
    if footnotes_xml is not None:
        parts[main.rsplit("/", 1)[0] + "/footnotes.xml"] = (f'<?xml version="1.0"?><w:footnotes xmlns:w="{W}">'
                                                             f"{footnotes_xml}</w:footnotes>")
    return _zip(parts)


_ODF_NAMESPACES = {"office": "office", "text": "text", "table": "table", "draw": "drawing",
                   "presentation": "presentation"}


def _odf(kind: str, body_xml: str, prefixes: tuple[str, ...], manifest: str = "<manifest/>") -> bytes:
    """An OpenDocument package whose office:``kind`` (text, spreadsheet, presentation) holds ``body_xml``, with the
    namespaces of ``prefixes`` declared."""
    namespaces = "".join(f'xmlns:{prefix}="urn:oasis:names:tc:opendocument:xmlns:{_ODF_NAMESPACES[prefix]}:1.0" '
                         for prefix in ("office", *prefixes))
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {namespaces}office:version="1.2">'
               f"<office:body><office:{kind}>{body_xml}</office:{kind}></office:body></office:document-content>")
    return _zip({"content.xml": content, "META-INF/manifest.xml": manifest},
                first=("mimetype", f"application/vnd.oasis.opendocument.{kind}"))


def make_odt(body_xml: str) -> bytes:
    """An .odt whose office:text holds ``body_xml`` (``<text:p>`` and ``<text:h>`` elements)."""
    return _odf("text", body_xml, ("text",))


def make_epub(chapters: list[str], *, encrypted: list[str] = (), algorithm: str = "http://www.w3.org/2001/04/"
              "xmlenc#aes128-cbc", folder: str = "OEBPS") -> bytes:
    """An EPUB whose spine lists ``chapters`` (each an XHTML body's inner markup), in order.

    The manifest lists them in reverse, so a reader that follows the manifest instead of the
    spine reads them in the wrong order.  ``encrypted`` names chapter files ("c1.xhtml") that
    META-INF/encryption.xml lists as encrypted with ``algorithm``.
    """
    names = [f"c{i + 1}.xhtml" for i in range(len(chapters))]
    manifest = "".join(f'<item id="i{i}" href="{name}" media-type="application/xhtml+xml"/>'
                       for i, name in reversed(list(enumerate(names))))
    spine = "".join(f'<itemref idref="i{i}"/>' for i in range(len(names)))
    parts: dict[str, str | bytes] = {
        "META-INF/container.xml": ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
                                   'opendocument:xmlns:container"><rootfiles><rootfile full-path="'
                                   f'{folder}/content.opf" media-type="application/oebps-package+xml"/>'
                                   "</rootfiles></container>"),
        f"{folder}/content.opf": ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                                  f'version="3.0"><manifest>{manifest}</manifest><spine>{spine}</spine></package>'),
    }
    for name, chapter in zip(names, chapters, strict=True):
        parts[f"{folder}/{name}"] = ('<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.'
                                     f'w3.org/1999/xhtml"><head><title>t</title></head><body>{chapter}</body></html>')
    if encrypted:
        data = "".join(f'<EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#"><EncryptionMethod Algorithm="'
                       f'{algorithm}"/><CipherData><CipherReference URI="{folder}/{name}"/></CipherData>'
                       "</EncryptedData>" for name in encrypted)
        parts["META-INF/encryption.xml"] = ('<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:'
                                            f'opendocument:xmlns:container">{data}</encryption>')
    return _zip(parts, first=("mimetype", "application/epub+zip"))


SML = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def make_xlsx(sheets: dict[str, str], *, strings: list[str] | None = None, strings_xml: str | None = None,
              styles_xml: str = "", hidden: tuple[str, ...] = (), date1904: bool = False,
              main: str = SML) -> bytes:
    """An .xlsx whose sheets are ``{name: sheetData's inner XML}`` (``<row>`` elements), in order.

    ``strings`` become the shared strings (``strings_xml`` gives their ``<si>`` elements as XML
    instead), ``styles_xml`` the inner XML of the style sheet, ``hidden`` the sheets whose state
    is hidden; ``main`` is the spreadsheet namespace (Strict Open XML's, to test those files).
    """
    entries = "".join(f'<sheet name="{escape(name)}" sheetId="{i + 1}" r:id="rId{i + 1}"'
                      + (' state="hidden"' if name in hidden else "") + "/>" for i, name in enumerate(sheets))
    relations = "".join(f'<Relationship Id="rId{i + 1}" Type="{_REL}/worksheet" Target="worksheets/sheet{i + 1}.xml"/>'
                        for i in range(len(sheets)))
    relations += (f'<Relationship Id="rS" Type="{_REL}/sharedStrings" Target="sharedStrings.xml"/>'
                  f'<Relationship Id="rT" Type="{_REL}/styles" Target="/xl/styles.xml"/>')
    pr = '<workbookPr date1904="1"/>' if date1904 else ""
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                               'content-types"/>',
        "_rels/.rels": ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                        f'relationships"><Relationship Id="rId1" Type="{_REL}/officeDocument" '
                        'Target="xl/workbook.xml"/></Relationships>'),
        "xl/workbook.xml": (f'<?xml version="1.0"?><workbook xmlns="{main}" xmlns:r="{_REL}">{pr}<sheets>{entries}'
                            "</sheets></workbook>"),
        "xl/_rels/workbook.xml.rels": ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
                                       f'package/2006/relationships">{relations}</Relationships>'),
        "xl/styles.xml": f'<?xml version="1.0"?><styleSheet xmlns="{main}">{styles_xml}</styleSheet>',
        "xl/sharedStrings.xml": (f'<?xml version="1.0"?><sst xmlns="{main}">' + (strings_xml if strings_xml is not None
                                 else "".join(f"<si><t>{escape(s)}</t></si>" for s in strings or []))
                                 + "</sst>"),
    }
    for i, rows in enumerate(sheets.values()):
        parts[f"xl/worksheets/sheet{i + 1}.xml"] = (f'<?xml version="1.0"?><worksheet xmlns="{main}">'
                                                    f"<sheetData>{rows}</sheetData></worksheet>")
    return _zip(parts)


def make_ods(tables: dict[str, str], *, encrypted: bool = False) -> bytes:
    """An .ods whose tables are ``{name: the table's inner XML}`` (``<table:table-row>`` elements), in order."""
    body = "".join(f'<table:table table:name="{escape(name)}">{rows}</table:table>' for name, rows in tables.items())
    manifest = ('<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
                '<manifest:file-entry manifest:full-path="content.xml">'
                + ('<manifest:encryption-data manifest:checksum="x"/>' if encrypted else "")
                + "</manifest:file-entry></manifest:manifest>")
    return _odf("spreadsheet", body, ("table", "text"), manifest)


_PML = "http://schemas.openxmlformats.org/presentationml/2006/main"
_DML = "http://schemas.openxmlformats.org/drawingml/2006/main"


def make_pptx(slides: list[tuple[str, str | None]], *, order: list[int] | None = None) -> bytes:
    """A .pptx of ``slides``, each (the inner XML of a text body: ``<a:p>`` elements, the speaker notes' or None).

    The slide parts are named in the given order; ``order`` lists them as the presentation shows
    them (by default as given).
    """
    ids = "".join(f'<p:sldId id="{256 + i}" r:id="rId{i + 1}"/>' for i in (order or range(len(slides))))
    relations = "".join(f'<Relationship Id="rId{i + 1}" Type="{_REL}/slide" Target="slides/slide{i + 1}.xml"/>'
                        for i in range(len(slides)))
    namespaces = f'xmlns:p="{_PML}" xmlns:a="{_DML}" xmlns:r="{_REL}"'
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                               'content-types"/>',
        "_rels/.rels": ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                        f'relationships"><Relationship Id="rId1" Type="{_REL}/officeDocument" '
                        'Target="ppt/presentation.xml"/></Relationships>'),
        "ppt/presentation.xml": f'<?xml version="1.0"?><p:presentation {namespaces}><p:sldIdLst>{ids}</p:sldIdLst>'
                                "</p:presentation>",
        "ppt/_rels/presentation.xml.rels": ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.'
                                            f'org/package/2006/relationships">{relations}</Relationships>'),
    }
    for i, (body, notes) in enumerate(slides):
        parts[f"ppt/slides/slide{i + 1}.xml"] = (f'<?xml version="1.0"?><p:sld {namespaces}><p:cSld><p:spTree><p:sp>'
                                                 f"<p:txBody>{body}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>")
        if notes is not None:
            parts[f"ppt/slides/_rels/slide{i + 1}.xml.rels"] = (
                '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                f'relationships"><Relationship Id="rN" Type="{_REL}/notesSlide" '
                f'Target="../notesSlides/notesSlide{i + 1}.xml"/></Relationships>')
            parts[f"ppt/notesSlides/notesSlide{i + 1}.xml"] = (
                f'<?xml version="1.0"?><p:notes {namespaces}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>'
                f"{escape(notes)}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:notes>")
    return _zip(parts)


def make_odp(pages_xml: str) -> bytes:
    """An .odp whose office:presentation holds ``pages_xml`` (``<draw:page>`` elements)."""
    return _odf("presentation", pages_xml, ("draw", "presentation", "text"))


def damaged(data: bytes, rng: random.Random, most_changes: int) -> bytes:
    """``data`` with 1 to ``most_changes`` changes at random places: a byte changed, up to 50 cut out or up to 20
    put in, for the readers' fuzz tests."""
    out = bytearray(data)
    for _ in range(rng.randint(1, most_changes)):
        at, change = rng.randrange(len(out)), rng.random()
        if change < 0.5:
            out[at] = rng.randrange(256)
        elif change < 0.75:
            del out[at:at + rng.randint(1, 50)]
        else:
            out[at:at] = rng.randbytes(rng.randint(1, 20))
    return bytes(out)
