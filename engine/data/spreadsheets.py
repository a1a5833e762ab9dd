"""The cells of spreadsheets: Excel workbooks (``.xlsx``, ``.xlsm``) and OpenDocument spreadsheets (``.ods``).

Many collections are kept in a sheet: survey answers one per row, a list of articles with their
dates and sections.  :func:`read_sheet` reads one sheet as a table of strings whose first row
with cells is the header, the way a CSV copy of the sheet would read; :func:`engine.read_table`
reads a sheet's rows as documents.

Each cell becomes the string of its value, the same for both formats:

- text as written, line breaks inside a cell kept (Excel's escapes such as ``_x000D_`` decoded);
- numbers in general form (``3``, ``0.25``, ``1234.5``), whatever their display format;
- dates and times as ISO text (``2024-03-05``, ``2024-03-05 14:30:00``, ``14:30:00``), from
  Excel's serial numbers (either date system) and its date formats, or ODF's typed values;
- booleans as ``TRUE``/``FALSE``; a formula cell as its last computed value; an error as shown
  (``#N/A``).

Rows without cells are skipped, as a CSV reader skips blank lines; rows of a single cell above a
wider row are the sheet's title, not its header (:attr:`Sheet.title`); an empty header cell is
named by its column letter (``C``) and a repeated one gets a suffix (``name.1``), as pandas does.
A sheet is streamed by expat over the bounded parts of :mod:`engine.data._packages` (no document
type, so no entities), and holds at most :data:`SHEET_CELLS` cells (rows times columns), so a
crafted file cannot ask for more memory than its own size warrants.  Without ``sheet``, the
sheet read is the one with the most rows (a collection rather than the notes sheet before it).
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pandas as pd

from engine.data._packages import Parts, UnreadableError, relation_id
from engine.errors import CorpusFormatError, EmptyCorpusError
from engine.limits import Limits, current_limits

__all__ = ["SHEET_CELLS", "SHEET_TITLE_ROWS", "SPREADSHEET_SUFFIXES", "Sheet", "read_sheet"]

_KINDS = {".xlsx": "Excel workbook", ".xlsm": "Excel workbook", ".ods": "OpenDocument spreadsheet"}
SPREADSHEET_SUFFIXES = tuple(_KINDS)  # the files read_sheet reads
SHEET_CELLS = 20_000_000  # the most cells (rows with cells times columns) a sheet may hold
SHEET_TITLE_ROWS = 5  # at most this many rows of one cell above the header are the sheet's title


@dataclass(frozen=True, eq=False)
class Sheet:
    """One sheet of a workbook, read as a table.

    Attributes
    ----------
    name : str
        The sheet's name.
    sheets : tuple of str
        The names of all the workbook's sheets, in their order.
    frame : pandas.DataFrame
        The rows after the header, every value a string (``""`` for an empty cell); the header's
        cells are the column names.
    title : tuple of str
        The rows of a single cell above the header (a title such as "Survey of May 2024", a
        note): at most :data:`SHEET_TITLE_ROWS` of them, above a first row of several cells that
        at least half of the 10 rows under it match.  They are neither the header nor documents.
    """

    name: str
    sheets: tuple[str, ...]
    frame: pd.DataFrame = field(repr=False)
    title: tuple[str, ...] = ()  # rows of one cell above the header, read as the sheet's title and left out


def read_sheet(source: str | Path | bytes, sheet: str | None = None, *, name: str | None = None,
               limits: Limits | None = None) -> Sheet:
    """Read one sheet of an Excel (``.xlsx``, ``.xlsm``) or OpenDocument (``.ods``) spreadsheet.

    Parameters
    ----------
    source : str, path-like or bytes
        The file, or its content.
    sheet : str, optional
        The sheet to read; by default the sheet with the most rows with cells, the first of
        equals (a collection's sheet rather than a notes sheet before it); of an Excel workbook,
        a visible one, unless no visible sheet holds a cell.
    name : str, optional
        The file's name for messages, and for bytes the format (by its suffix; without one the
        format is told from the content).
    limits : Limits, optional
        ``max_expanded_mb`` bounds what the file's parts expand to; by default
        :func:`engine.current_limits`.

    Returns
    -------
    Sheet

    Raises
    ------
    CorpusFormatError
        The file is damaged, protected by a password, an older binary ``.xls``, has no sheet
        ``sheet`` (the message lists its sheets), or its sheet has more than :data:`SHEET_CELLS` cells.
    EmptyCorpusError
        No sheet holds a cell.
    """
    if isinstance(source, bytes):
        data, name = source, name or "spreadsheet"
    else:
        data, name = Path(source).read_bytes(), name or str(source)
    label = repr(name)
    limits = limits or current_limits()
    suffix = PurePosixPath(name.replace("\\", "/")).suffix.lower()
    kind = _KINDS.get(suffix, "spreadsheet")
    try:
        parts = Parts(data, name if suffix in _KINDS else f"{name}.xlsx", limits, kind)
        if suffix == ".ods" or (suffix not in _KINDS and "content.xml" in parts):
            names, cells = _read_ods(parts, sheet, label)
        else:
            names, cells = _read_xlsx(parts, sheet, label)
    except UnreadableError as exc:
        raise CorpusFormatError(f"{label} {exc}") from None
    if sheet is not None and sheet not in names:
        raise CorpusFormatError(f"{label} has no sheet {sheet!r}; its sheets: " + ", ".join(map(repr, names)))
    if cells is None:
        where = f"its sheet {sheet!r}" if sheet is not None else "none of its sheets"
        raise EmptyCorpusError(f"{label} is empty: {where} holds a cell; a sheet needs a header row and one "
                               "row per document")
    frame, title = cells.frame()
    return Sheet(cells.sheet, tuple(names), frame, title)


# --- the cells of one sheet ---------------------------------------------------------------------------------

class _Cells:
    """The non-empty cells of one sheet, by row and column (0-based), bounded by :data:`SHEET_CELLS`."""

    def __init__(self, sheet: str, label: str):
        self.sheet, self.label = sheet, label
        self.rows: dict[int, dict[int, str]] = {}
        self.count = 0

    def put(self, row: int, col: int, value: str, repeat: int = 1) -> None:
        """Store ``value`` at ``row`` and the ``repeat - 1`` columns after ``col``."""
        if not value:
            return
        if self.count + repeat > SHEET_CELLS:
            raise self._too_large()
        cells = self.rows.setdefault(row, {})
        for c in range(col, col + repeat):
            if c not in cells:
                self.count += 1
            cells[c] = value

    def _too_large(self) -> CorpusFormatError:
        return CorpusFormatError(f"{self.label}: its sheet {self.sheet!r} has more than {SHEET_CELLS:,} cells; "
                                 "keep the rows and columns you need (for example as .csv) and read that")

    def frame(self) -> tuple[pd.DataFrame, tuple[str, ...]]:
        """The table under the header, and the title rows above it (see :class:`Sheet`)."""
        order = sorted(self.rows)
        widths = [len(self.rows[r]) for r in order[:SHEET_TITLE_ROWS + 11]]
        top = next((i for i, width in enumerate(widths) if width > 1), 0)  # the first row of several cells
        below = widths[top + 1:top + 11]
        if not (top <= SHEET_TITLE_ROWS and below and 2 * sum(width > 1 for width in below) >= len(below)):
            top = 0  # no title: the rows of one cell are the table's (a note in column B is no header)
        title, order = tuple(next(iter(self.rows[r].values())) for r in order[:top]), order[top:]
        width = 1 + max(max(self.rows[r]) for r in order)
        if len(order) * width > SHEET_CELLS:
            raise self._too_large()
        header = self.rows[order[0]]
        columns, seen = [], {}
        for c in range(width):
            column = header.get(c, "") or _column_letters(c)
            while column in seen:  # pandas' names for repeated headers: "name", "name.1", "name.2"
                seen[column] += 1
                column = f"{column}.{seen[column]}"
            seen[column] = 0
            columns.append(column)
        body = [[cells.get(c, "") for c in range(width)] for cells in (self.rows[r] for r in order[1:])]
        return pd.DataFrame(body, columns=columns, dtype=object), title


def _column_letters(col: int) -> str:
    """``0`` -> ``"A"``, ``26`` -> ``"AA"``."""
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _general(text: str) -> str:
    """A number in general form: ``"3"`` for 3.0, ``"0.3"`` for 0.30000000000000004; text that is no number as it is."""
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return format(number, ".15g")


def _clock(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    return f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"


# --- Excel (.xlsx, .xlsm) ------------------------------------------------------------------------------------

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_STRICT = "http://purl.oclc.org/ooxml/spreadsheetml/main"  # Excel's "Strict Open XML" files: read as the usual ones
_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")  # Excel's escape of a character XML cannot hold ("_x000D_")
_REFERENCE = re.compile(r"([A-Z]{1,3})([0-9]{1,7})")
# built-in number formats that show a date or a time (ECMA-376 part 1, 18.8.30; 27-36 and 50-58: East Asian dates)
_DATE_FORMATS = {14: "d", 15: "d", 16: "d", 17: "d", 18: "t", 19: "t", 20: "t", 21: "t", 22: "dt", 45: "t",
                 46: "t", 47: "t", **dict.fromkeys(range(27, 37), "d"), **dict.fromkeys(range(50, 59), "d")}
# quoted text, [colour] and [$locale] (not the elapsed [h], [mm], [ss]), escaped characters, padding
_FORMAT_LITERALS = re.compile(r'"[^"]*"|\[(?![hms]+\])[^\]]*\]|\\.|_.|\*.', re.IGNORECASE)


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), text)


def _date_kind(code: str) -> str:
    """``"d"`` (a date), ``"t"`` (a time), ``"dt"`` (both) or ``""`` (a number) for a custom number format."""
    shown = _FORMAT_LITERALS.sub("", code).lower()
    has_date, has_time = bool(re.search("[dy]", shown)), bool(re.search("[hs]", shown))
    if not has_date and not has_time and "m" in shown:
        has_date = True  # "mmm": a month's name
    return ("d" if has_date else "") + ("t" if has_time else "")


def _serial_date(serial: str, kind: str, date1904: bool) -> str | None:
    """An Excel date serial as ISO text, or None if it is not one."""
    try:
        days = float(serial)
        if not math.isfinite(days) or days < 0:
            return None
        if kind == "t":  # a time, or a duration such as [h]:mm
            return _clock(round(days * 86400))
        # the 1900 system counts a 29 February 1900 that never was: serials before it start a day later
        start = datetime.datetime(1904, 1, 1) if date1904 else datetime.datetime(1899, 12, 30 if days >= 61 else 31)
        moment = start + datetime.timedelta(seconds=round(days * 86400))
    except (ValueError, OverflowError):
        return None
    if kind == "d":
        return moment.date().isoformat()
    return moment.isoformat(sep=" ")


class _Names:
    """The names of SpreadsheetML's elements as :meth:`Parts.scan` gives them, in the workbook's namespace."""

    def __init__(self, namespace: str):
        for local in ("si", "t", "rPh", "numFmt", "cellXfs", "xf", "row", "c", "v"):
            setattr(self, local, f"{namespace} {local}")


class _SharedStrings:
    """The workbook's shared strings, in order; a rich string's runs joined, phonetic guides left out."""

    def __init__(self, names: _Names):
        self.names, self.strings = names, []
        self.parts: list[str] | None = None  # the open string's text
        self.taking = self.phonetic = 0

    def start(self, name: str, attrs: dict) -> None:
        if name == self.names.si:
            self.parts = []
        elif name == self.names.rPh:
            self.phonetic += 1
        elif name == self.names.t and self.parts is not None and not self.phonetic:
            self.taking += 1

    def end(self, name: str) -> None:
        if name == self.names.si and self.parts is not None:
            self.strings.append(_unescape("".join(self.parts)))
            self.parts = None
        elif name == self.names.rPh:
            self.phonetic -= 1
        elif name == self.names.t and self.taking:
            self.taking -= 1

    def text(self, data: str) -> None:
        if self.taking:
            self.parts.append(data)


class _Styles:
    """Which cell styles show a date or a time: ``kinds[s]`` for a cell's style index ``s``."""

    def __init__(self, names: _Names):
        self.names = names
        self.formats: dict[int, str] = dict(_DATE_FORMATS)
        self.kinds: list[str] = []
        self.in_cell_styles = False

    def start(self, name: str, attrs: dict) -> None:
        if name == self.names.numFmt:
            number = attrs.get("numFmtId", "")
            if number.isdigit():
                self.formats[int(number)] = _date_kind(attrs.get("formatCode", ""))
        elif name == self.names.cellXfs:
            self.in_cell_styles = True
        elif name == self.names.xf and self.in_cell_styles:
            number = attrs.get("numFmtId", "0")
            self.kinds.append(self.formats.get(int(number), "") if number.isdigit() else "")

    def end(self, name: str) -> None:
        if name == self.names.cellXfs:
            self.in_cell_styles = False

    def text(self, data: str) -> None:
        pass


class _XlsxSheet:
    """The cells of a worksheet part."""

    def __init__(self, names: _Names, cells: _Cells, strings: list[str], kinds: list[str], date1904: bool):
        self.names, self.cells, self.strings, self.kinds, self.date1904 = names, cells, strings, kinds, date1904
        self.values = (names.v, names.t)
        self.row = self.col = -1
        self.cell: tuple[str, int] | None = None  # the open cell's type and style
        self.value: list[str] = []
        self.taking = self.phonetic = 0

    def start(self, name: str, attrs: dict) -> None:
        if name == self.names.c:
            match = _REFERENCE.fullmatch(attrs.get("r", ""))
            if match:
                col = 0
                for letter in match.group(1):
                    col = 26 * col + ord(letter) - 64
                self.row, self.col = max(int(match.group(2)) - 1, 0), col - 1
            else:
                self.col += 1
            style = attrs.get("s", "0")
            self.cell = (attrs.get("t", "n"), int(style) if style.isdigit() else 0)
            self.value = []
        elif name in self.values and self.cell is not None and not self.phonetic:
            self.taking += 1
        elif name == self.names.row:
            number = attrs.get("r", "")
            self.row, self.col = (int(number) - 1 if number.isdigit() and int(number) > 0 else self.row + 1), -1
        elif name == self.names.rPh:
            self.phonetic += 1

    def end(self, name: str) -> None:
        if name in self.values and self.taking:
            self.taking -= 1
        elif name == self.names.c and self.cell is not None:
            self.cells.put(self.row, self.col, self._value(*self.cell, "".join(self.value)))
            self.cell = None
        elif name == self.names.rPh:
            self.phonetic -= 1

    def text(self, data: str) -> None:
        if self.taking:
            self.value.append(data)

    def _value(self, kind: str, style: int, text: str) -> str:
        if kind == "s":
            index = int(text) if text.strip().isdigit() else -1
            if not 0 <= index < len(self.strings):
                raise UnreadableError(f"is damaged: a cell of sheet {self.cells.sheet!r} names shared string "
                                      f"{text.strip()!r}, which it does not hold; save it again")
            return self.strings[index]
        if kind in ("inlineStr", "str", "e", "d"):  # text, a formula's text, an error, an ISO date
            return _unescape(text) if kind != "d" else text.replace("T", " ")
        if kind == "b":
            return {"1": "TRUE", "0": "FALSE"}.get(text.strip(), text)
        date_kind = self.kinds[style] if style < len(self.kinds) else ""
        if date_kind and text.strip():
            shown = _serial_date(text, date_kind, self.date1904)
            if shown is not None:
                return shown
        return _general(text.strip()) if text.strip() else ""


def _read_xlsx(parts: Parts, wanted: str | None, label: str) -> tuple[list[str], _Cells | None]:
    workbook = parts.main_part("xl/workbook.xml")
    if workbook not in parts:
        raise UnreadableError("is damaged or not an Excel workbook: it has no workbook part; save it again as .xlsx")
    relations = parts.relations(workbook)
    root = parts.xml(workbook)
    namespace = _STRICT if root.tag.startswith("{" + _STRICT) else _MAIN
    tags, main = _Names(namespace), "{" + namespace + "}"
    properties = root.find(main + "workbookPr")
    date1904 = properties is not None and properties.get("date1904", "").lower() in ("1", "true")
    sheets = [(entry.get("name", ""), entry.get("state", "visible"), relation_id(entry))
              for entry in root.iter(main + "sheet")]
    names = [name for name, _, _ in sheets]
    if wanted is not None and wanted not in names:
        return names, None
    strings, kinds = [], []
    for kind, target in relations.values():
        if kind.endswith("/sharedStrings") and target in parts:
            handler = _SharedStrings(tags)
            parts.scan(target, handler)
            strings = handler.strings
        elif kind.endswith("/styles") and target in parts:
            styles = _Styles(tags)
            parts.scan(target, styles)
            kinds = styles.kinds
    best: _Cells | None = None
    for visible in (True, False):  # hidden sheets only when no visible one holds a cell
        for name, state, relation in sheets:
            if (wanted is not None and name != wanted) or (wanted is None and (state == "visible") != visible):
                continue
            kind, target = relations.get(relation, ("", ""))
            if not kind.endswith("/worksheet"):
                continue  # a chart sheet or a dialog sheet holds no cells
            if target not in parts:
                raise UnreadableError(f"is damaged: its sheet {name!r} has no part {target!r}; save it again")
            cells = _Cells(name, label)
            parts.scan(target, _XlsxSheet(tags, cells, strings, kinds, date1904))
            if len(cells.rows) > (len(best.rows) if best is not None else 0):
                best = cells
        if best is not None or wanted is not None:
            break
    return names, best


# --- OpenDocument (.ods) -------------------------------------------------------------------------------------

_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0 "
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0 "
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0 "
_MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
_CELLS = (_TABLE + "table-cell", _TABLE + "covered-table-cell")
_PARAGRAPHS = (_TEXT + "p", _TEXT + "h")
_DURATION = re.compile(r"-?P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d*)?)S)?")
_REPEATS = 2**24  # a row or a cell repeated more often than the largest sheet has rows is damage


class _OdsSheets:
    """The cells of an OpenDocument spreadsheet's ``content.xml``: every table's name, and the cells of the table
    wanted (by default of the one with the most rows)."""

    def __init__(self, wanted: str | None, label: str):
        self.wanted, self.label = wanted, label
        self.names: list[str] = []
        self.chosen: _Cells | None = None
        self.cells: _Cells | None = None  # the table being read, if it is read
        self.depth = 0  # tables inside a table's cell are read as that cell's text
        self.row = -1
        self.row_cells: list[tuple[int, str, int]] = []  # (column, value, repeat) of the open row
        self.row_repeat = self.col = 0
        self.cell: tuple[str | None, int] | None = None
        self.paragraphs: list[list[str]] = []
        self.skipping = 0

    def start(self, name: str, attrs: dict) -> None:
        if self.skipping or name == _OFFICE + "annotation":  # a comment is no part of the cell's value
            self.skipping += 1
        elif name == _TABLE + "table":
            self.depth += 1
            if self.depth == 1:
                sheet = attrs.get(_TABLE + "name", f"Sheet{len(self.names) + 1}")
                self.names.append(sheet)
                wanted = sheet == self.wanted if self.wanted is not None else True
                self.cells, self.row = (_Cells(sheet, self.label) if wanted else None), -1
        elif self.cells is None:
            return
        elif self.depth == 1 and name == _TABLE + "table-row":
            self.row_repeat, self.col, self.row_cells = self._repeat(attrs, "number-rows-repeated"), 0, []
        elif self.depth == 1 and name in _CELLS:
            self.cell = (self._typed(attrs), self._repeat(attrs, "number-columns-repeated"))
            self.paragraphs = []
        elif self.cell is None:
            return
        elif name in _PARAGRAPHS:
            self.paragraphs.append([])
        elif not self.paragraphs:
            return
        elif name == _TEXT + "s":
            count = attrs.get(_TEXT + "c", "1")
            self.paragraphs[-1].append(" " * min(int(count), 1000) if count.isdigit() else " ")
        elif name == _TEXT + "tab":
            self.paragraphs[-1].append("\t")
        elif name == _TEXT + "line-break":
            self.paragraphs[-1].append("\n")

    def end(self, name: str) -> None:
        if self.skipping:
            self.skipping -= 1
        elif name == _TABLE + "table":
            self.depth -= 1
            if self.depth == 0 and self.cells is not None:
                if len(self.cells.rows) > (len(self.chosen.rows) if self.chosen is not None else 0):
                    self.chosen = self.cells  # the sheet with the most rows, the first of equals
                self.cells = None
        elif self.depth != 1 or self.cells is None:
            return
        elif name in _CELLS and self.cell is not None:
            typed, repeat = self.cell
            value = typed if typed is not None else "\n".join("".join(p) for p in self.paragraphs)
            if value:
                self.row_cells.append((self.col, value, repeat))
            self.col += repeat
            self.cell = None
        elif name == _TABLE + "table-row":
            for r in range(self.row + 1, self.row + 1 + (self.row_repeat if self.row_cells else 0)):
                for col, value, repeat in self.row_cells:
                    self.cells.put(r, col, value, repeat)
            self.row += self.row_repeat

    def text(self, data: str) -> None:
        if self.cell is not None and self.paragraphs and not self.skipping:
            self.paragraphs[-1].append(data)

    def _repeat(self, attrs: dict, local: str) -> int:
        count = attrs.get(_TABLE + local, "1")
        if not count.isdigit() or not 1 <= int(count) <= _REPEATS:
            raise UnreadableError(f"is damaged: a {local} of {count!r} in sheet {self.names[-1]!r}; save it again")
        return int(count)

    @staticmethod
    def _typed(attrs: dict) -> str | None:
        """A number's, date's, time's or boolean's value as the Excel reader gives it; None: read the cell's text."""
        kind = attrs.get(_OFFICE + "value-type")
        if kind in ("float", "percentage", "currency"):
            value = attrs.get(_OFFICE + "value")
            return _general(value) if value is not None else None
        if kind == "date":
            value = attrs.get(_OFFICE + "date-value")
            return value.split(".")[0].replace("T", " ") if value else None
        if kind == "time":
            match = _DURATION.fullmatch(attrs.get(_OFFICE + "time-value", ""))
            if not match or not any(match.groups()):
                return None
            days, hours, minutes, seconds = (float(g or 0) for g in match.groups())
            return _clock(round(((days * 24 + hours) * 60 + minutes) * 60 + seconds))
        if kind == "boolean":
            return {"true": "TRUE", "false": "FALSE"}.get(attrs.get(_OFFICE + "boolean-value", "").lower())
        return None


def _read_ods(parts: Parts, wanted: str | None, label: str) -> tuple[list[str], _Cells | None]:
    if "META-INF/manifest.xml" in parts:
        manifest = parts.xml("META-INF/manifest.xml")
        if manifest.find(f".//{_MANIFEST}encryption-data") is not None:
            raise UnreadableError("is protected by a password; open it, save it without a password, and read that")
    handler = _OdsSheets(wanted, label)
    parts.scan("content.xml", handler)
    return handler.names, handler.chosen
