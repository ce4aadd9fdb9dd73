#!/usr/bin/env python3
"""Writes the extraction test fixtures next to this script (run it from anywhere).

article.pdf is made separately from article.ms:
    groff -ms -t -Tpdf article.ms > article.pdf
Everything else is written here, deterministically, with the standard library.
"""
import gzip
import io
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def gz(data):
    # mtime=0 keeps the bytes reproducible.
    return gzip.compress(data, mtime=0)


# --- HTML in several character sets -------------------------------------------------

RU = "Приливные мельницы молотили зерно в эстуариях Европы восемь веков."
JA = "潮汐水車は八世紀にわたりヨーロッパの河口で穀物を挽いた。"
FR = "Les moulins à marée ont moulu le grain des estuaires européens pendant huit siècles."


def page(body, head=""):
    return f"<!DOCTYPE html><html><head>{head}<title>Mills</title></head><body>" \
           f"<nav><a href='/'>Accueil</a></nav>{body}<footer>Site footer</footer></body></html>"


write("html-utf8.html", page(f"<p>{FR}</p>", "<meta charset='utf-8'>").encode("utf-8"))
write("html-windows1251.html", page(f"<p>{RU}</p>", '<meta http-equiv="Content-Type" '
                                    'content="text/html; charset=windows-1251">').encode("cp1251"))
write("html-shiftjis.html", page(f"<p>{JA}</p>", "<meta charset=Shift_JIS>").encode("shift_jis"))
# No declaration at all: the detector must find windows-1252.
write("html-latin1-undeclared.html", page(f"<p>{FR}</p>").encode("cp1252"))
write("html-utf16.html", "\ufeff".encode("utf-16-le") + page(f"<p>{FR}</p>").encode("utf-16-le"))
# Declares UTF-8 but is windows-1252: falls back to detection.
write("html-mislabelled.html", page(f"<p>{FR}</p>", "<meta charset=utf-8>").encode("cp1252"))

# --- plain text --------------------------------------------------------------------

write("text-utf16be.txt", "\ufeff".encode("utf-16-be") + (FR + "\n").encode("utf-16-be"))
write("text-koi8r.txt", (RU + "\n").encode("koi8_r"))

# --- JATS and TEI ------------------------------------------------------------------

JATS = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.3 20210610//EN" "JATS-archivearticle1-3.dtd">
<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML" article-type="research-article">
<front>
<journal-meta><journal-id>coastal</journal-id><journal-title-group><journal-title>Journal of Coastal Memory</journal-title></journal-title-group><issn>1234-5678</issn></journal-meta>
<article-meta>
<article-id pub-id-type="doi">10.5555/coastal.2024.001</article-id>
<title-group><article-title>Tidal Mills and the Memory of Estuaries</article-title></title-group>
<contrib-group><contrib contrib-type="author"><name><surname>Example</surname><given-names>A.</given-names></name><email>a@example.org</email></contrib></contrib-group>
<pub-date><year>2024</year></pub-date>
<abstract><p>Tidal mills ground grain along European estuaries for eight centuries.</p></abstract>
<kwd-group><kwd>millponds</kwd></kwd-group>
</article-meta>
</front>
<body>
<sec><title>Introduction</title>
<p>A tidal mill stores the rising tide in a millpond&#x2014;and releases it through a <italic>water</italic>wheel<xref ref-type="bibr" rid="r1">1</xref>.</p>
<disp-quote><p>The pond remembers what the village forgets.</p></disp-quote>
<fig id="f1"><label>Figure 1</label><caption><p>The sluice gate at Woodbridge at low water.</p></caption><graphic xlink:href="f1.png"/></fig>
<table-wrap id="t1"><label>Table 1</label><caption><p>Surviving sites</p></caption>
<table><thead><tr><th>Site</th><th>Country</th></tr></thead><tbody><tr><td>Eling</td><td>England</td></tr><tr><td>Ria Formosa</td><td>Portugal</td></tr></tbody></table></table-wrap>
<p>See <ext-link ext-link-type="uri" xlink:href="https://example.org/mills">https://example.org/mills</ext-link> for photographs &amp; maps.</p>
<p>Energy <inline-formula><alternatives><tex-math>E = mgh</tex-math><mml:math><mml:mi>E</mml:mi></mml:math></alternatives></inline-formula> stored.</p>
</sec>
</body>
<back>
<ack><p>We thank the millers.</p></ack>
<ref-list><title>References</title>
<ref id="r1"><mixed-citation publication-type="journal"><person-group><name><surname>Minchinton</surname><given-names>W</given-names></name></person-group>. Early tide mills: some problems. <source>Technology and Culture</source>. 1979. <pub-id pub-id-type="doi">10.2307/3104116</pub-id></mixed-citation></ref>
</ref-list>
</back>
</article>
"""
write("jats.xml", JATS.encode("utf-8"))

TEI = """<?xml version="1.0" encoding="ISO-8859-1"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0">
<teiHeader>
<fileDesc>
<titleStmt><title level="a" type="main">Les moulins à marée</title><author><persName>A. Exemple</persName></author></titleStmt>
<publicationStmt><publisher>Presses du littoral</publisher><idno type="DOI">10.5555/tei.1</idno></publicationStmt>
<sourceDesc><p>Born digital.</p></sourceDesc>
</fileDesc>
<profileDesc><abstract><p>Les moulins à marée ont moulu le grain pendant huit siècles.</p></abstract></profileDesc>
</teiHeader>
<text>
<body>
<div><head>Introduction</head>
<fw type="header">Moulins - page 3</fw>
<p>Le meunier tra<lb break="no"/>vaille quand l'eau le permet,<lb/>souvent la nuit.</p>
<p><choice><sic>Lorient</sic><corr>L'Orient</corr></choice> comptait trois moulins.</p>
<quote>L'étang se souvient de ce que le village oublie.</quote>
<figure><head>Figure 1</head><figDesc>La vanne du moulin à marée.</figDesc></figure>
</div>
</body>
<back>
<div type="references"><listBibl>
<biblStruct><analytic><title>Early tide mills</title><author><persName><surname>Minchinton</surname></persName></author></analytic>
<monogr><title>Technology and Culture</title><imprint><date when="1979"/></imprint></monogr><idno type="DOI">10.2307/3104116</idno><ptr target="https://doi.org/10.2307/3104116"/></biblStruct>
</listBibl></div>
</back>
</text>
</TEI>
"""
write("tei.xml", TEI.encode("latin-1"))

# --- EPUB --------------------------------------------------------------------------

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""

OPF = """<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:0</dc:identifier><dc:title>Mills</dc:title><dc:language>en</dc:language></metadata>
<manifest>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
<item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
<item id="c1" href="text/chapter1.xhtml" media-type="application/xhtml+xml"/>
<item id="css" href="style.css" media-type="text/css"/>
</manifest>
<spine><itemref idref="nav" linear="no"/><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>"""


def xhtml(title, body):
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title><link rel="stylesheet" href="../style.css"/></head>
<body>{body}</body></html>"""


def epub(name, entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        for path, data in entries:
            z.writestr(path, data, compress_type=zipfile.ZIP_DEFLATED)
    write(name, buf.getvalue())


epub("book.epub", [
    ("META-INF/container.xml", CONTAINER),
    ("OEBPS/content.opf", OPF),
    ("OEBPS/nav.xhtml", xhtml("Contents", "<nav><ol><li>Chapter one</li></ol></nav>")),
    ("OEBPS/text/chapter1.xhtml", xhtml("One", "<h1>Chapter one</h1><p>The tide rises into the millpond.</p>")),
    ("OEBPS/text/chapter 2.xhtml", xhtml("Two", "<h1>Chapter two</h1><p>The wheel turns at low water.</p>")),
    ("OEBPS/style.css", "p { margin: 0 }"),
])

# A zip bomb: one chapter of 64 MiB of spaces, about 64 KiB compressed (1000:1).
epub("bomb.epub", [
    ("META-INF/container.xml", CONTAINER),
    ("OEBPS/content.opf", OPF),
    ("OEBPS/text/chapter1.xhtml", xhtml("One", " " * (64 << 20))),
    ("OEBPS/text/chapter 2.xhtml", xhtml("Two", "<p>never reached</p>")),
])

# --- WARC and ARC -----------------------------------------------------------------


def warc_record(kind, uri, rid, content_type, block):
    head = [f"WARC/1.1", f"WARC-Type: {kind}", f"WARC-Record-ID: <urn:uuid:{rid}>",
            "WARC-Date: 2024-01-01T00:00:00Z"]
    if uri:
        head.append(f"WARC-Target-URI: {uri}")
    head += [f"Content-Type: {content_type}", f"Content-Length: {len(block)}"]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + block + b"\r\n\r\n"


def http(status, headers, body):
    lines = [f"HTTP/1.1 {status}"] + [f"{k}: {v}" for k, v in headers] + ["", ""]
    return "\r\n".join(lines).encode("latin-1") + body


def chunked(body, size=7):
    out = b""
    for i in range(0, len(body), size):
        part = body[i:i + size]
        out += f"{len(part):x}\r\n".encode() + part + b"\r\n"
    return out + b"0\r\n\r\n"


with open(os.path.join(HERE, "article.pdf"), "rb") as f:
    PDF = f.read()

HTML_PAGE = page(f"<main><h1>Mills</h1><p>{FR}</p><p>Source: https://example.org/x</p></main>").encode("utf-8")
records = [
    warc_record("warcinfo", None, "00000000-0000-0000-0000-000000000000", "application/warc-fields",
                b"software: make_fixtures.py\r\n"),
    warc_record("request", "http://example.org/mills", "00000000-0000-0000-0000-000000000001",
                "application/http; msgtype=request", b"GET /mills HTTP/1.1\r\nHost: example.org\r\n\r\n"),
    # HTML, chunked and gzip-encoded on the wire.
    warc_record("response", "http://example.org/mills", "00000000-0000-0000-0000-000000000002",
                "application/http; msgtype=response",
                http("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip"),
                                ("Transfer-Encoding", "chunked")], chunked(gz(HTML_PAGE)))),
    # A PDF payload.
    warc_record("response", "http://example.org/article.pdf", "00000000-0000-0000-0000-000000000003",
                "application/http; msgtype=response",
                http("200 OK", [("Content-Type", "application/pdf"), ("Content-Length", str(len(PDF)))], PDF)),
    # Plain text whose charset only the HTTP header names.
    warc_record("response", "http://example.ru/mills.txt", "00000000-0000-0000-0000-000000000004",
                "application/http; msgtype=response",
                http("200 OK", [("Content-Type", "text/plain; charset=koi8-r")], RU.encode("koi8_r"))),
    # Cut off in the middle: this member's gzip stream is truncated below.
    warc_record("response", "http://example.org/truncated", "00000000-0000-0000-0000-000000000005",
                "application/http; msgtype=response",
                http("200 OK", [("Content-Type", "text/html")], b"<p>" + b"lost words " * 200 + b"</p>")),
    # Not documents: a redirect and an image.
    warc_record("response", "http://example.org/old", "00000000-0000-0000-0000-000000000006",
                "application/http; msgtype=response",
                http("301 Moved Permanently", [("Location", "/mills")], b"")),
    warc_record("response", "http://example.org/f1.png", "00000000-0000-0000-0000-000000000007",
                "application/http; msgtype=response",
                http("200 OK", [("Content-Type", "image/png")], b"\x89PNG\r\n\x1a\n")),
    # A resource record: the JATS article itself.
    warc_record("resource", "file:///articles/jats.xml", "00000000-0000-0000-0000-000000000008",
                "application/jats+xml", JATS.encode("utf-8")),
]
members = [gz(r) for r in records]
members[5] = members[5][: len(members[5]) // 2]
write("sample.warc.gz", b"".join(members))

# The same records uncompressed, with the fourth one's header broken.
plain = records[:]
plain[3] = plain[3].replace(b"Content-Length: ", b"Content-Lenght: ", 1)
del plain[5]
write("sample.warc", b"".join(plain))

# A gzip bomb between two good records: 64 MiB of spaces as a text payload.
bomb = warc_record("resource", "file:///bomb.txt", "00000000-0000-0000-0000-00000000000b", "text/plain",
                   b" " * (64 << 20))
write("bomb.warc.gz", members[2] + gz(bomb) + members[8])


def arc_record(url, content_type, body):
    return f"{url} 192.0.2.1 20240101000000 {content_type} {len(body)}\n".encode() + body + b"\n"


filedesc_body = b"1 0 make_fixtures.py\nURL IP-address Archive-date Content-type Archive-length\n"
arc = [
    arc_record("filedesc://sample.arc", "text/plain", filedesc_body),
    arc_record("http://example.org/mills", "text/html",
               http("200 OK", [("Content-Type", "text/html; charset=windows-1252")],
                    page(f"<p>{FR}</p>").encode("cp1252"))),
    arc_record("http://example.org/notes.txt", "text/plain",
               http("200 OK", [("Content-Type", "text/plain")], b"The wheel turns at low water.\n")),
]
write("sample.arc.gz", b"".join(gz(r) for r in arc))

# --- a PDF whose page tree is a cycle ------------------------------------------------


def pdf(objects):
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


write("cyclic.pdf", pdf([
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    # A "page tree node" that lists its own parent as its kid.
    b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
]))

# A stream whose /Length and a page whose /Contents are reference loops.
write("cyclic-refs.pdf", pdf([
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources 5 0 R >>",
    b"6 0 R",
    b"<< /Font << /F1 5 0 R >> /Parent 5 0 R >>",
    b"4 0 R",
]))

# Scanned-style PDF: one page, no text operators at all.
write("no-text.pdf", pdf([
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>",
    b"<< /Length 20 >>\nstream\n0 0 100 100 re f\n\nendstream",
]))
