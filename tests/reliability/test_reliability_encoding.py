"""Text in legacy encodings decodes exactly, says which encoding was assumed, and can be overridden.

The panel: short and long texts in French, German, Spanish, Portuguese and Italian
encoded as Latin-1 and Windows-1252 (once decoded as Windows-1257, "crème" ->
"crčme"), and genuine Windows-1257, -1251, -1250, -1253, Shift-JIS and GB2312 text
that must keep its own encoding.
"""

import io
import zipfile

import pytest

import engine
from engine import Corpus, FileDecodingError, decode_text, detect_encoding, load_corpus, read_table, read_zip

WESTERN = {
    "fr_short": "crème brûlée à la française, déjà vu",
    "fr_word": "à",
    "fr_long": "Le château était situé près de la forêt. Après le dîner, nous avons goûté une crème "
               "brûlée délicieuse. Où êtes-vous allés l'été dernier? Ça m'a paru étrange, déjà vu.",
    "de_short": "Größe und Übergröße, schön",
    "de_word": "Größe",
    "de_long": "Die Größe des Gebäudes überraschte uns. Müller und Schäfer gingen über die Straße, "
               "um Brötchen zu kaufen. Äpfel, Öfen und Übungen gehören zum Alltag.",
    "es_short": "el año pasado, mañana",
    "es_word": "año",
    "es_long": "El año pasado viajé a España con mi compañero. ¿Dónde está la estación? Mañana "
               "iremos al campo, señor. ¡Qué sorpresa tan agradable!",
    "pt_short": "ação e coração, não",
    "pt_long": "A situação econômica do país não é fácil. As crianças estão na escola e os pais "
               "trabalham muito. Informação, educação e saúde são direitos de todos.",
    "it_short": "perché la città è bella",
    "it_long": "La città è molto bella e perché no, andiamo là. Più tardi prenderemo un caffè. "
               "Però non è così facile: l'università è lontana e già domani partiremo.",
}
WINDOWS_ONLY = {  # characters Latin-1 lacks: typographic quotes, the euro, oe ligature
    "fr_quotes": "« L’été » — c’est déjà là… œuvre, cœur",
    "de_euro": "Der Preis beträgt 5 € – „günstig“",
}
OTHERS = [
    ("lt_long", "cp1257", "Lietuvos Respublika yra nepriklausoma demokratinė valstybė. Žmogaus teisės "
                          "ir laisvės yra įgimtos. Šiandien šviečia saulė, o vakare lis lietus."),
    ("lt_short", "cp1257", "Ačiū, labai gražu"),
    ("lv_long", "cp1257", "Latvijas Republika ir neatkarīga demokrātiska republika. Valsts valoda ir "
                          "latviešu valoda. Šodien ir skaista diena, un mēs ejam uz jūru."),
    ("ru_long", "cp1251", "Москва является столицей Российской Федерации. Это крупнейший город страны "
                          "и один из крупнейших городов мира. Сегодня хорошая погода."),
    ("ru_short", "cp1251", "Привет, как дела?"),
    ("pl_long", "cp1250", "Zażółć gęślą jaźń. Polska jest krajem w Europie Środkowej. Dziś jest piękny dzień."),
    ("el_long", "cp1253", "Η Ελλάδα είναι χώρα της νοτιοανατολικής Ευρώπης. Η Αθήνα είναι η πρωτεύουσα."),
    ("ja_long", "shift_jis", "日本語のテキストです。東京は日本の首都であり、"
                             "世界最大の都市の一つです。今日は天気が良いです。"),
    ("zh_long", "gb2312", "中华人民共和国是一个位于东亚的国家。北京是中国的首都，"
                          "也是政治和文化中心。今天天气很好。"),
]
PANEL = ([(f"{k}/{enc}", enc, t) for k, t in WESTERN.items() for enc in ("latin-1", "cp1252")]
         + [(f"{k}/cp1252", "cp1252", t) for k, t in WINDOWS_ONLY.items()]
         + [(f"{k}/{enc}", enc, t) for k, enc, t in OTHERS])


@pytest.mark.parametrize(("name", "encoding", "text"), PANEL, ids=[p[0] for p in PANEL])
def test_panel_decodes_exactly(name, encoding, text):
    assert decode_text(text.encode(encoding), name) == text


@pytest.mark.parametrize("key", ["fr_short", "fr_long", "de_word", "es_word"])
def test_western_text_is_reported_as_windows_1252(key):
    assert detect_encoding(WESTERN[key].encode("latin-1"), "a.txt") == "windows-1252"


@pytest.mark.parametrize(("data", "expected"), [
    (b"plain ascii", "utf-8"),
    ("déjà".encode(), "utf-8"),
    ("\ufeffdéjà".encode(), "utf-8-sig"),
    ("déjà".encode("utf-16"), "utf-16"),
    (OTHERS[0][2].encode("cp1257"), "windows-1257"),
    (OTHERS[3][2].encode("cp1251"), "windows-1251"),
])
def test_detect_encoding_names_what_was_assumed(data, expected):
    assert detect_encoding(data, "a.txt") == expected


def test_explicit_encoding_overrides_the_guess():
    data = "Ačiū, labai gražu".encode("cp1257")
    assert decode_text(data, "a.txt", encoding="cp1257") == "Ačiū, labai gražu"
    assert decode_text(data, "a.txt", encoding="windows-1252") == "Aèiû, labai graþu"
    assert decode_text("\ufeffutf".encode(), "a.txt", encoding="utf-8") == "utf"  # the BOM is not text


def test_wrong_explicit_encoding_names_the_file_and_byte():
    data = "line one\ncrème".encode("cp1252")
    with pytest.raises(FileDecodingError, match=r"'notes\.txt' is not valid utf-8: byte 0xe8 at offset 11 \(line 2\)"):
        decode_text(data, "notes.txt", encoding="utf-8")


def test_unknown_encoding_is_refused_before_reading(tmp_path):
    with pytest.raises(ValueError, match=r"encoding must be the name of a text encoding.*'klingon'"):
        decode_text(b"x", "a.txt", encoding="klingon")
    with pytest.raises(ValueError, match="'klingon'"):
        load_corpus(tmp_path / "missing.csv", encoding="klingon")


def test_binary_data_is_refused_even_with_an_explicit_encoding():
    with pytest.raises(FileDecodingError, match="binary"):
        decode_text(b"ab\x00cd", "a.txt", encoding="latin-1")


def test_readers_record_the_encoding_per_file(tmp_path):
    files = [("fr.txt", WESTERN["fr_long"].encode("cp1252")), ("en.txt", b"plain english text"),
             ("lt.txt", OTHERS[0][2].encode("cp1257"))]
    documents = engine.read_txt_files(files)
    assert documents.encodings == {"fr.txt": "windows-1252", "en.txt": "utf-8", "lt.txt": "windows-1257"}
    assert [d.text for d in documents] == [WESTERN["fr_long"], "plain english text", OTHERS[0][2]]
    forced = engine.read_txt_files(files[:2], encoding="latin-1")
    assert forced.encodings == {"fr.txt": "iso-8859-1", "en.txt": "iso-8859-1"}

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files:
            archive.writestr(name, data)
    assert read_zip(buffer.getvalue()).encodings == documents.encodings
    with pytest.raises(FileDecodingError, match=r"'fr\.txt' is not valid utf-8: byte 0xe2"):
        read_zip(buffer.getvalue(), encoding="utf-8")

    folder = tmp_path / "texts"
    folder.mkdir()
    for name, data in files:
        (folder / name).write_bytes(data)
    corpus = load_corpus(folder)
    assert dict(corpus.encodings) == documents.encodings
    assert dict(Corpus.load(corpus.save(tmp_path / "saved")).encodings) == documents.encodings
    assert dict(corpus.subset([0]).encodings) == documents.encodings


def test_table_encoding_is_recorded_and_can_be_given(tmp_path):
    rows = "id,text\n1,crème brûlée et déjà vu\n2,Größe und Übergröße\n"
    path = tmp_path / "t.csv"
    path.write_bytes(rows.encode("cp1252"))
    documents = read_table(path, "text")
    assert documents.encodings == {str(path): "windows-1252"}
    assert [d.text for d in documents] == ["crème brûlée et déjà vu", "Größe und Übergröße"]
    assert load_corpus(path, encoding="cp1252").encodings == ((str(path), "windows-1252"),)
    with pytest.raises(FileDecodingError, match=r"is not valid utf-8: byte 0xe8 .* \(line 2\)"):
        load_corpus(path, encoding="utf-8")


def test_corpora_saved_before_encodings_were_recorded_still_load(tmp_path):
    import json

    folder = Corpus.from_texts(["alpha beta", "beta gamma"]).save(tmp_path / "c")
    meta = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    del meta["encodings"]
    (folder / "corpus.json").write_text(json.dumps(meta), encoding="utf-8")
    assert Corpus.load(folder).encodings == ()


def test_disk_corpus_tables_take_an_encoding(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes("id,text\n1,crème brûlée déjà\n2,Größe Übergröße\n".encode("cp1252"))
    with pytest.raises(FileDecodingError, match=r"is not valid UTF-8 .*give its encoding"):
        engine.DiskCorpus.from_texts(path, tmp_path / "disk")
    disk = engine.DiskCorpus.from_texts(path, tmp_path / "disk", encoding="windows-1252")
    assert disk.vocabulary == load_corpus(path).vocabulary
    with pytest.raises(ValueError, match="'klingon'"):
        engine.DiskCorpus.from_texts(path, tmp_path / "disk2", encoding="klingon")
