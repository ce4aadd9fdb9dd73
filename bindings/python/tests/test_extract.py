"""Extraction through the Python API on the extractor's own fixtures
(crates/extract/tests/data), with the CLI's limits and typed errors."""

import pytest

import priorart
from conftest import EXTRACT_DATA

FR = "Les moulins à marée ont moulu le grain des estuaires européens pendant huit siècles."
RU = "Приливные мельницы молотили зерно в эстуариях Европы восемь веков."


def read(name):
    return (EXTRACT_DATA / name).read_bytes()


def test_html_and_text_in_any_charset():
    for name in ["html-utf8.html", "html-latin1-undeclared.html", "html-utf16.html", "html-mislabelled.html"]:
        assert priorart.extract(read(name)) == FR, name
    assert priorart.extract(read("html-windows1251.html")) == RU
    # Plain text is only decoded, as every command reads it (its final newline kept).
    assert priorart.extract(read("text-koi8r.txt")) == RU + "\n"
    assert priorart.extract(read("text-utf16be.txt")) == FR + "\n"


def test_documents_of_other_formats():
    assert "Tidal Mills and the Memory of Estuaries" in priorart.extract(read("article.pdf"))
    assert priorart.extract(read("jats.xml"))
    assert priorart.extract(read("book.epub"))
    # A forced format is used as it is.
    assert priorart.extract(b"<p>a &amp; b</p>", format="text") == "<p>a &amp; b</p>"
    assert priorart.extract(b"<p>a &amp; b</p>", format="html") == "a & b"


def test_extraction_errors_are_typed():
    with pytest.raises(priorart.ExtractionError) as caught:
        priorart.extract(read("bomb.epub"))
    assert caught.value.reason == "decompression_bomb"
    assert isinstance(caught.value, ValueError)
    with pytest.raises(priorart.ExtractionError) as caught:
        priorart.extract(read("no-text.pdf"))
    assert caught.value.reason == "no_text_layer"
    with pytest.raises(priorart.ExtractionError) as caught:
        priorart.extract(read("sample.warc"))
    assert caught.value.reason == "many_documents"
    with pytest.raises(priorart.InputError) as caught:
        priorart.extract(b"x", format="docx")
    assert caught.value.reason == "unknown_format"


def test_warc_gz_records_and_the_truncated_member():
    records = list(priorart.warc_records(EXTRACT_DATA / "sample.warc.gz"))
    assert [r[0] for r in records] == [
        "http://example.org/mills",
        "http://example.org/article.pdf",
        "http://example.ru/mills.txt",
        "file:///articles/jats.xml",
    ]
    uri, record_id, offset, text = records[0]
    assert record_id == "<urn:uuid:00000000-0000-0000-0000-000000000002>"
    assert text == f"Mills\n\n{FR}\n\nSource:"
    assert isinstance(offset, int)
    assert records[2][3] == RU
    everything = list(priorart.web_archive_records(str(EXTRACT_DATA / "sample.warc.gz")))
    bad = [r for r in everything if r.error_reason is not None]
    assert [r.error_reason for r in bad] == ["truncated_gzip"]
    assert bad[0].text is None and bad[0].offset > offset


def test_plain_warc_arc_and_a_bomb_record():
    everything = list(priorart.web_archive_records(EXTRACT_DATA / "sample.warc"))
    assert sum(r.text is not None for r in everything) == 3
    bad = [r for r in everything if r.text is None]
    assert [(r.uri, r.error_reason) for r in bad] == [("http://example.org/article.pdf", "malformed")]
    arc = {r[0]: r[3] for r in priorart.warc_records(EXTRACT_DATA / "sample.arc.gz")}
    assert arc["http://example.org/mills"] == FR
    assert arc["http://example.org/notes.txt"] == "The wheel turns at low water."
    bomb = list(priorart.web_archive_records(EXTRACT_DATA / "bomb.warc.gz"))
    assert sum(r.text is not None for r in bomb) == 2
    assert [r.error_reason for r in bomb if r.text is None] == ["decompression_bomb"]


def test_a_file_that_is_not_a_web_archive_or_not_there():
    with pytest.raises(priorart.ExtractionError) as caught:
        list(priorart.warc_records(EXTRACT_DATA / "html-utf8.html"))
    assert caught.value.reason == "unsupported"
    with pytest.raises(OSError):
        list(priorart.warc_records(EXTRACT_DATA / "no-such-file.warc"))
