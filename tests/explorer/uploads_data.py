"""Small uploads of every supported and unsupported kind, as (file name, bytes) lists."""

from __future__ import annotations

import datetime
import io
import json
import tempfile
import zipfile
from pathlib import Path

from engine.data.bow_formats import write_ldac, write_uci
from engine.data.corpus import Corpus
from tests.engine._documents import make_docx, make_epub, make_odp, make_odt, make_pdf, make_pptx, word_paragraph

TEXTS = [
    "The planet orbits a distant star; the rocket launch was delayed by the comet.",
    "Bake the bread in a hot oven with butter, flour and a pinch of salt.",
    "The team scored a late goal and the coach praised the players after the match.",
    "Stock markets fell as investors worried about inflation and interest rates.",
    "Astronauts aboard the station photographed the galaxy through the telescope.",
    "Simmer the sauce with garlic and onion, then season the roast with pepper.",
]


# the same six documents in German, and in French (a second text column of a table)
GERMAN = [
    "Der Planet umkreist einen fernen Stern, und der Start der Rakete wurde wegen des Kometen verschoben.",
    "Das Brot wird im heißen Ofen mit Butter, Mehl und einer Prise Salz gebacken.",
    "Die Mannschaft hat spät ein Tor geschossen, und der Trainer lobte die Spieler nach dem Spiel.",
    "Die Aktienmärkte fielen, weil sich die Anleger über die Inflation und die Zinsen sorgten.",
    "Die Astronauten auf der Station haben die Galaxie durch das Teleskop fotografiert.",
    "Die Soße mit Knoblauch und Zwiebeln köcheln lassen, dann den Braten mit Pfeffer würzen.",
]
FRENCH = [
    "La planète tourne autour d'une étoile lointaine, et le lancement de la fusée a été retardé par la comète.",
    "Le pain est cuit dans un four chaud avec du beurre, de la farine et une pincée de sel.",
    "L'équipe a marqué un but tardif et l'entraîneur a félicité les joueurs après le match.",
    "Les marchés ont baissé car les investisseurs s'inquiétaient de l'inflation et des taux.",
    "Les astronautes de la station ont photographié la galaxie avec le télescope.",
    "Faire mijoter la sauce avec l'ail et l'oignon, puis assaisonner le rôti avec du poivre.",
]


def zip_upload(name: str, members: dict[str, bytes]) -> list[tuple[str, bytes]]:
    """One .zip upload called ``name`` holding ``members`` (path in the archive -> bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in members.items():
            archive.writestr(path, data)
    return [(name, buffer.getvalue())]


def german_zip() -> list[tuple[str, bytes]]:
    return zip_upload("texte.zip", {f"texte/dok{i}.txt": text.encode("utf-8") for i, text in enumerate(GERMAN)})


CHINESE = [
    "文件系统的挂载点由管理员设置，用户可以读取文件。",
    "命令行程序读取标准输入，并把结果写到标准输出。",
    "网络接口的地址由管理员配置，内核负责转发数据包。",
]
JAPANESE = [
    "ファイルシステムをマウントするには管理者の権限が必要です。",
    "データベースのバックアップを毎日取得してください。",
]


HINDI = [
    "हिंदी भाषा में लिखा गया पाठ। यह एक परीक्षण है और इसमें कई शब्द हैं।",
    "इस फ़ाइल में शब्दों की सूची है, जो परीक्षण के लिए लिखी गई है।",
    "भाषा के शब्द और वाक्य इस पाठ में हैं; यह पाठ परीक्षण के लिए है।",
]


def hindi_zip() -> list[tuple[str, bytes]]:
    return zip_upload("hindi.zip", {f"hi/{i}.txt": text.encode("utf-8") for i, text in enumerate(HINDI)})


def cjk_zip() -> list[tuple[str, bytes]]:
    """Chinese in UTF-8 and GB18030, Japanese in Shift_JIS: the encodings such files come in."""
    chinese = {f"zh/{i}.txt": text.encode("gb18030" if i == 0 else "utf-8") for i, text in enumerate(CHINESE)}
    japanese = {f"ja/{i}.txt": text.encode("shift_jis") for i, text in enumerate(JAPANESE)}
    return zip_upload("cjk.zip", {**chinese, **japanese})


def bilingual_table() -> list[tuple[str, bytes]]:
    """English in the wordiest column (``english``, the one suggested), French in ``french``."""
    pairs = enumerate(zip(TEXTS, FRENCH, strict=True))
    rows = ["id,english,french"] + [f'{i},"{e} {e}","{f}"' for i, (e, f) in pairs]
    return [("bilingual.csv", "\n".join(rows).encode("utf-8"))]


# a footer of two lines (21 words) that every document of footer_zip() ends with: boilerplate
FOOTER = ("Copyright Acme Publishing; reprinted under the Creative Commons licence with attribution.",
          "Subscribers send corrections to the newsletter editors before Friday afternoon.")
FOOTER_WORDS = {"copyright", "acme", "publishing", "reprinted", "creative", "commons", "licence", "attribution",
                "subscribers", "corrections", "newsletter", "editors", "friday", "afternoon"}


def footer_zip() -> list[tuple[str, bytes]]:
    """Twelve reports with distinct bodies, each ending with :data:`FOOTER`."""
    reports = {f"reports/{i}.txt": f"{text} Report number {i}.\n\n{FOOTER[0]}\n{FOOTER[1]}\n".encode()
               for i, text in enumerate(TEXTS * 2)}
    return zip_upload("reports.zip", reports)


def text_files() -> list[tuple[str, bytes]]:
    return [(f"doc{i}.txt", text.encode("utf-8")) for i, text in enumerate(TEXTS)]


def office_documents() -> list[tuple[str, bytes]]:
    """:data:`TEXTS` as two PDF files, two Word files, an OpenDocument text and an EPUB book."""
    writers = [("pdf", lambda t: make_pdf([[t[:60], t[60:]]])), ("docx", lambda t: make_docx(word_paragraph(t))),
               ("odt", lambda t: make_odt(f"<text:p>{t}</text:p>")), ("epub", lambda t: make_epub([f"<p>{t}</p>"]))]
    return [(f"doc{i}.{writers[i % 4][0]}", writers[i % 4][1](text)) for i, text in enumerate(TEXTS)]


NOTES = ["Collected for the newsroom's archive of feature stories.", "Ask the editor before quoting these articles."]


def titled_sheet() -> list[tuple[str, bytes]]:
    """:data:`TEXTS` in a sheet under two title rows (as people lay out a sheet to print), written by openpyxl."""
    import openpyxl  # the test extra's spreadsheet writer

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Articles of the spring issue"])
    sheet.append(["Compiled by the editors"])
    sheet.append(["id", "headline", "body"])
    for i, text in enumerate(TEXTS):
        sheet.append([i, f"Title {i}", text])
    out = io.BytesIO()
    book.save(out)
    return [("spring.xlsx", out.getvalue())]


def workbook(suffix: str = ".xlsx") -> list[tuple[str, bytes]]:
    """:data:`TEXTS` as the rows of a sheet "Articles" (id, headline, body, published), then a sheet "Notes" of
    :data:`NOTES`, written by openpyxl (.xlsx) or odfpy (.ods) as Excel and LibreOffice write them."""
    import pandas as pd  # the test extra's spreadsheet writers, through pandas

    articles = pd.DataFrame({"id": range(6), "headline": [f"Title {i}" for i in range(6)], "body": TEXTS,
                             "published": [datetime.date(2024, 5, 1 + i) for i in range(6)]})
    out = io.BytesIO()
    with pd.ExcelWriter(out, engine="openpyxl" if suffix == ".xlsx" else "odf") as book:
        articles.to_excel(book, sheet_name="Articles", index=False)
        pd.DataFrame({"remark": NOTES}).to_excel(book, sheet_name="Notes", index=False)
    return [(f"articles{suffix}", out.getvalue())]


def markdown_notes() -> list[tuple[str, bytes]]:
    """:data:`TEXTS` as Markdown notes, each with front matter, a heading and a link."""
    return [(f"note{i}.md", f"---\ntitle: Note {i}\n---\n# Note {i}\n\n{text} [Source](https://example.com/{i}).\n"
             .encode()) for i, text in enumerate(TEXTS)]


def rst_pages() -> list[tuple[str, bytes]]:
    """:data:`TEXTS` as reStructuredText pages, each with a link target, a title, a role, a link and a directive."""
    return [(f"page{i}.rst", f".. _page{i}:\n\nPage {i}\n======\n\n{text} See :ref:`Source <page{i}>` and "
             f"`the site <https://example.com/{i}>`_.\n\n.. code-block:: python\n   :linenos:\n\n   print({i})\n"
             .encode()) for i, text in enumerate(TEXTS)]


def slides() -> list[tuple[str, bytes]]:
    """:data:`TEXTS` as three PowerPoint decks (the text on a slide, its last words as the speaker's notes) and three
    OpenDocument presentations."""
    def deck(text: str) -> bytes:
        return make_pptx([(f"<a:p><a:r><a:t>{text[:40]}</a:t></a:r></a:p>", text[40:])])

    def pages(text: str) -> bytes:
        return make_odp(f"<draw:page><draw:frame><draw:text-box><text:p>{text}</text:p></draw:text-box></draw:frame>"
                        "</draw:page>")

    return [(f"talk{i}.pptx", deck(text)) if i < 3 else (f"talk{i}.odp", pages(text)) for i, text in enumerate(TEXTS)]


def zip_of_texts() -> list[tuple[str, bytes]]:
    return zip_upload("docs.zip", {**{f"docs/{name}": data for name, data in text_files()},
                                   "docs/readme.pdf": b"%PDF-1.4"})


def sphinx_site_zip(more: dict[str, bytes] | None = None) -> list[tuple[str, bytes]]:
    """A site Sphinx built, zipped: :data:`TEXTS` as six pages with their copied sources, its generated pages, four
    style sheets and scripts, and a zip's own file of macOS metadata (14 skipped files, for five reasons); ``more``
    files in the zip too."""
    pages = {f"site/page{i}.html": f"<html><body><p>{text}</p></body></html>".encode() for i, text in enumerate(TEXTS)}
    sources = {f"site/_sources/page{i}.rst.txt": text.encode() for i, text in enumerate(TEXTS)}
    other = {"site/objects.inv": b"# Sphinx inventory version 2\n", "site/genindex.html": b"<p>Index</p>",
             "site/search.html": b"<p>Search</p>", "site/_static/basic.css": b"p {}", "site/_static/doctools.js": b"",
             "site/_static/pygments.css": b"", "site/_static/searchtools.js": b"", "__MACOSX/site/._page0.html": b""}
    return zip_upload("site.zip", pages | sources | other | (more or {}))


def csv_table() -> list[tuple[str, bytes]]:
    rows = ["id,headline,body"] + [f'{i},"Title {i}","{t}"' for i, t in enumerate(TEXTS)]
    return [("articles.csv", "\n".join(rows).encode("utf-8"))]


def tsv_table() -> list[tuple[str, bytes]]:
    rows = ["title\ttext"] + [f"T{i}\t{t}" for i, t in enumerate(TEXTS)]
    return [("articles.tsv", "\n".join(rows).encode("utf-8"))]


def jsonl_table() -> list[tuple[str, bytes]]:
    rows = [json.dumps({"title": f"T{i}", "text": t}) for i, t in enumerate(TEXTS)]
    return [("articles.jsonl", "\n".join(rows).encode("utf-8"))]


def _bag_of_words(writer, name: str) -> list[tuple[str, bytes]]:
    corpus = Corpus.from_texts(TEXTS)
    with tempfile.TemporaryDirectory() as folder:
        counts, vocab = Path(folder) / name, Path(folder) / "vocab.txt"
        writer(corpus, counts, vocab)
        return [(name, counts.read_bytes()), ("vocab.txt", vocab.read_bytes())]


def uci() -> list[tuple[str, bytes]]:
    return _bag_of_words(write_uci, "docword.small.txt")


def ldac() -> list[tuple[str, bytes]]:
    return _bag_of_words(write_ldac, "small.dat")


def cp1252_texts() -> list[tuple[str, bytes]]:
    return [("cafe.txt", "Le café crème était très bon, déjà célèbre à Paris.".encode("cp1252")),
            ("ete.txt", "L'été à la plage: soleil, crème solaire et café glacé.".encode("cp1252"))]


def utf16_text() -> list[tuple[str, bytes]]:
    return [("utf16.txt", "Planets orbit stars; rockets launch satellites.".encode("utf-16"))]


def zip_bomb(expanded_bytes: int) -> list[tuple[str, bytes]]:
    return zip_upload("bomb.zip", {"big.txt": b"a " * (expanded_bytes // 2 + 1)})


BAD = {
    "empty": [("empty.txt", b"")],
    "binary": [("image.txt", bytes(range(256)) * 4)],
    "csv without text": [("numbers.csv", b"a,b\n1,2\n3,4\n")],
    "unsupported": [("slides.ppt", b"\xd0\xcf\x11\xe0")],
    "old excel": [("budget.xls", b"\xd0\xcf\x11\xe0" + bytes(60))],
    "locked workbook": [("locked.xlsx", b"\xd0\xcf\x11\xe0" + bytes(60))],
    "damaged pdf": [("slides.pdf", b"%PDF-1.4 ...")],
    "scanned pdf": [("scan.pdf", make_pdf([[], []])), ("scan2.pdf", make_pdf([[]]))],
    "bag of words without vocabulary": [("docword.x.txt", b"1\n2\n1\n1 1 3\n")],
    "not a zip": [("broken.zip", b"this is not a zip archive")],
}


def message(i: int, text: str) -> str:
    """A newsgroup reply holding ``text``: header lines, a quoted line under its attribution, and a signature."""
    return (f"Path: news.example.edu!relay{i % 3}.example.net\nFrom: poster{i}@example.edu (Poster {i})\n"
            f"Newsgroups: misc.talk\nSubject: Re: note {i}\nMessage-ID: <{i}@example.edu>\n"
            f"Date: Mon, {1 + i % 28} Mar 1993 10:00:00 GMT\n\n"
            f"In article <{i + 100}@example.edu>, other{i}@example.edu writes:\n> an earlier word quoted\n\n"
            f"{text}\n-- \nPoster {i}, Example University\n")


def mailbox(n: int = 24) -> bytes:
    """An mbox file of ``n`` such messages, one body line starting with "From " written ">From "."""
    parts = []
    for i, text in enumerate((TEXTS * (n // len(TEXTS) + 1))[:n]):
        body = message(i, text).replace(f"{text}\n", f"{text}\n>From the start of spring.\n", i == 0)
        parts.append(f"From poster{i}@example.edu Mon Mar  1 10:00:00 1993\n{body}\n")
    return "".join(parts).encode("utf-8")


MESSAGE_WORDS = {"news", "poster", "example", "edu", "newsgroups", "misc", "talk", "earlier", "quoted",
                 "writes", "university", "gmt", "mar"}  # words only the headers, quotes and signatures hold


def book(paragraphs: int = 60, first: int = 0) -> str:
    """One long text of paragraphs on three subjects in turn (88 words each, 5,280 in all at the default): a book
    uploaded alone.  Each paragraph ends with its number written onto its last word ("comet.7": no word of its own,
    no vocabulary word, counted from ``first``), so that no two passages are copies of each other."""
    return "\n\n".join(" ".join([TEXTS[p % 3]] * 6) + str(first + p) for p in range(paragraphs))
