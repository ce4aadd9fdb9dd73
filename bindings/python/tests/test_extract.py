"""Extraction through the Python API on the extractor's own fixtures
(crates/extract/tests/data), with the CLI's limits and typed errors."""

import itertools
import os
import time

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


def resource_record(number):
    body = f"Record {number}: tidal mills ground grain in the estuaries.\n".encode()
    head = (
        "WARC/1.0\r\nWARC-Type: resource\r\n"
        f"WARC-Target-URI: http://example.org/{number}\r\n"
        f"WARC-Record-ID: <urn:uuid:{number:08d}-0000-0000-0000-000000000000>\r\n"
        f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body + b"\r\n\r\n"


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_web_archive_records_stream_a_large_archive(tmp_path):
    """400,000 records (about 100 MB): the first record comes at once and
    reading it holds a few pages, not the file and every record's text (the
    old reader built the whole list before returning anything)."""
    records = 400_000
    path = tmp_path / "large.warc"
    with open(path, "wb") as out:
        for start in range(0, records, 50_000):
            out.write(b"".join(resource_record(n) for n in range(start, start + 50_000)))
    size = path.stat().st_size
    assert size > 90 << 20
    before = resident_bytes()
    started = time.monotonic()
    reader = priorart.web_archive_records(path)
    first = next(reader)
    elapsed = time.monotonic() - started
    grown = resident_bytes() - before
    assert first.uri == "http://example.org/0" and first.offset == 0
    assert first.text == "Record 0: tidal mills ground grain in the estuaries."
    assert elapsed < 2.0, elapsed
    assert grown < 16 << 20, f"{grown} bytes resident after one record of a {size}-byte archive"
    # It goes on lazily, in file order.
    for expected, record in zip(range(1, 1000), reader):
        assert record.uri == f"http://example.org/{expected}"
    uris = [uri for uri, _, _, _ in itertools.islice(priorart.warc_records(path), 3)]
    assert uris == ["http://example.org/0", "http://example.org/1", "http://example.org/2"]


def minimal_pdf(pages, lines_per_page):
    """A valid PDF of `pages` pages of text (xref offsets computed)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", None, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for page in range(pages):
        lines = b"".join(
            b"(Page %d line %d: tidal mills ground grain in the estuaries of Europe.) Tj T* " % (page, line)
            for line in range(lines_per_page)
        )
        stream = b"BT /F1 10 Tf 12 TL 40 800 Td " + lines + b"ET"
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents %d 0 R >>" % content
        )
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), pages)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def child_processes():
    """The pids of this process's children (Linux)."""
    children = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as listed:
            children.update(int(pid) for pid in listed.read().split())
    return children


def test_a_pdf_is_read_in_a_child_process():
    before = child_processes()
    pdf = minimal_pdf(2, 3)
    text = priorart.extract(pdf)
    assert "Page 1 line 2: tidal mills" in text
    assert priorart.extract(pdf, format="pdf") == text
    with pytest.raises(priorart.ExtractionError) as caught:
        priorart.extract(read("no-text.pdf"))
    assert caught.value.reason == "no_text_layer"
    assert child_processes() <= before


def test_a_pdf_past_the_time_limit_is_killed_with_its_child():
    """A PDF that takes longer than the limit: the call returns a typed
    error at the limit, and the child reading it is gone (killed, not left
    spinning as an in-process parser thread would be)."""
    before = child_processes()
    pdf = minimal_pdf(200, 40)
    started = time.monotonic()
    complete = priorart.extract(pdf, time_limit=600)
    full = time.monotonic() - started
    assert "Page 199 line 30" in complete
    limit = min(0.5, full / 4)
    started = time.monotonic()
    with pytest.raises(priorart.ExtractionError) as caught:
        priorart.extract(pdf, time_limit=limit)
    stopped = time.monotonic() - started
    assert caught.value.reason == "timeout"
    assert isinstance(caught.value, priorart.InputError)
    assert limit <= stopped < limit + 1.0, (limit, stopped, full)
    assert child_processes() <= before, "the worker was killed and reaped"
    with pytest.raises(priorart.InputError) as caught:
        priorart.extract(pdf, time_limit=0)
    assert caught.value.reason == "out_of_range"
