//! HTML and XHTML → text.
//!
//! html5ever (through `scraper`) builds the same tree a browser would. We then walk
//! it without recursion and keep what a reader of the page's content reads:
//! - the content root is the page's one `<main>` (or `role=main`), else its one
//!   `<article>`, else the whole document;
//! - skipped: `<head>`, scripts, styles, templates, forms, embedded media, and
//!   boilerplate: `<nav>`, `<aside>`, page `<header>`/`<footer>`, ARIA landmarks
//!   for navigation, banners and site info, hidden elements, and class/id names
//!   such as `navheader` or `breadcrumb`;
//! - kept: headings, paragraphs, lists, tables (cells separated, rows on lines),
//!   figure captions, block quotes and reference lists; link text but never the
//!   link target.

use crate::budget::Budget;
use crate::clean::TextSink;
use crate::{ExtractError, Limits, decode};
use ego_tree::iter::Edge;
use encoding_rs::Encoding;
use scraper::{Html, Node};

/// Elements whose whole subtree is not document text.
const SKIPPED: &[&str] = &[
    "head",
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "aside",
    "form",
    "button",
    "select",
    "option",
    "textarea",
    "input",
    "svg",
    "math-annotation",
    "canvas",
    "iframe",
    "object",
    "embed",
    "audio",
    "video",
    "map",
    "menu",
    "dialog",
    "rp",
    "rt",
];

/// ARIA roles of page furniture.
const SKIPPED_ROLES: &[&str] =
    &["navigation", "banner", "contentinfo", "search", "menu", "menubar", "complementary", "dialog"];

/// Class or id names of page furniture (compared whole, case-insensitively;
/// anything starting with `nav` also counts).
const BOILERPLATE_NAMES: &[&str] = &[
    "breadcrumb",
    "breadcrumbs",
    "site-header",
    "site-footer",
    "page-header",
    "page-footer",
    "footer",
    "menu",
    "skip-link",
    "skiplink",
    "cookie-banner",
    "cookie-notice",
    "share",
    "social",
    "toolbar",
];

/// Elements that end a paragraph.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "main",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "ul",
];

/// Elements that end a line.
const LINES: &[&str] = &["br", "li", "tr", "thead", "tbody", "tfoot"];

/// Elements that separate words without a line break.
const CELLS: &[&str] = &["td", "th", "img", "wbr"];

/// Decodes `bytes` (see `decode::decode_html`) and extracts the text.
pub(crate) fn extract(
    bytes: &[u8],
    transport: Option<&'static Encoding>,
    limits: &Limits,
    budget: &Budget,
) -> Result<String, ExtractError> {
    let source = decode::decode_html(bytes, transport)?;
    budget.check()?;
    extract_str(&source, limits, budget)
}

/// Extracts the text of an already decoded HTML document.
pub(crate) fn extract_str(source: &str, limits: &Limits, budget: &Budget) -> Result<String, ExtractError> {
    prescan_depth(source, limits)?;
    let document = Html::parse_document(source);
    budget.check()?;
    let root = content_root(&document);
    let mut sink = TextSink::default();
    let mut depth = 0usize;
    let mut skip_depth: Option<usize> = None;
    for (step, edge) in root.traverse().enumerate() {
        if step % 4096 == 0 {
            budget.check()?;
        }
        match edge {
            Edge::Open(node) => {
                depth += 1;
                if depth > limits.max_depth {
                    return Err(ExtractError::TooDeep { limit: limits.max_depth });
                }
                if skip_depth.is_some() {
                    continue;
                }
                match node.value() {
                    Node::Element(element) => {
                        if is_skipped(element) || is_page_furniture(node) {
                            skip_depth = Some(depth);
                        } else {
                            separate(&mut sink, element.name());
                        }
                    }
                    Node::Text(text) => sink.text(text),
                    _ => {}
                }
            }
            Edge::Close(node) => {
                if skip_depth == Some(depth) {
                    skip_depth = None;
                } else if skip_depth.is_none()
                    && let Node::Element(element) = node.value()
                {
                    separate(&mut sink, element.name());
                }
                depth -= 1;
            }
        }
    }
    Ok(sink.into_string())
}

/// Elements without content or end tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
    "wbr",
];
/// Elements whose content is not markup.
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "title", "xmp", "noscript", "plaintext"];
/// Elements that a start tag of the same name closes.
const SELF_CLOSING_SIBLINGS: &[&str] = &["p", "li", "dt", "dd", "option", "tr", "td", "th"];

/// html5ever's tree builder does work proportional to the depth of the open
/// element stack for every tag, so a 100 000-deep document costs minutes. This
/// linear scan approximates the stack (void elements, raw text, implied end tags)
/// and refuses the input before parsing when it is four times deeper than the
/// limit; the exact limit is checked on the parsed tree.
fn prescan_depth(source: &str, limits: &Limits) -> Result<(), ExtractError> {
    let lower = source.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let ceiling = limits.max_depth.saturating_mul(4);
    let mut stack: Vec<&str> = Vec::new();
    let mut i = 0;
    while let Some(at) = bytes[i..].iter().position(|&b| b == b'<') {
        i += at + 1;
        let rest = &lower[i..];
        if rest.starts_with("!--") {
            i += rest.find("-->").map_or(rest.len(), |end| end + 3);
            continue;
        }
        let closing = rest.starts_with('/');
        let name_start = i + usize::from(closing);
        let name_len = bytes[name_start..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        let tag_end = bytes[i..].iter().position(|&b| b == b'>').map_or(bytes.len(), |end| i + end);
        if name_len == 0 {
            continue;
        }
        let name = &lower[name_start..name_start + name_len];
        let self_closed = tag_end > i && bytes[tag_end - 1] == b'/';
        i = tag_end.min(bytes.len());
        if closing {
            if let Some(open) = stack.iter().rposition(|&n| n == name) {
                stack.truncate(open);
            }
        } else if RAW_TEXT.contains(&name) {
            let end_tag = format!("</{name}");
            i += lower[i..].find(&end_tag).unwrap_or(lower.len() - i);
        } else if !VOID.contains(&name) && !self_closed {
            if SELF_CLOSING_SIBLINGS.contains(&name) && stack.last() == Some(&name) {
                stack.pop();
            }
            stack.push(name);
            if stack.len() > ceiling {
                return Err(ExtractError::TooDeep { limit: limits.max_depth });
            }
        }
    }
    Ok(())
}

/// The one `<main>` (or `role=main`), else the one `<article>`, else the document.
fn content_root(document: &Html) -> ego_tree::NodeRef<'_, Node> {
    let mut mains = Vec::new();
    let mut articles = Vec::new();
    for node in document.tree.root().descendants() {
        if let Node::Element(element) = node.value() {
            if element.name() == "main"
                || element.attr("role").is_some_and(|r| r.eq_ignore_ascii_case("main"))
            {
                mains.push(node);
            } else if element.name() == "article" {
                articles.push(node);
            }
        }
    }
    match (mains.as_slice(), articles.as_slice()) {
        ([main], _) => *main,
        (_, [article]) => *article,
        _ => document.tree.root(),
    }
}

fn is_skipped(element: &scraper::node::Element) -> bool {
    let name = element.name();
    if SKIPPED.contains(&name) || element.attr("hidden").is_some() {
        return true;
    }
    if element.attr("aria-hidden").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        return true;
    }
    if element.attr("style").is_some_and(hides) {
        return true;
    }
    if element.attr("role").is_some_and(|role| SKIPPED_ROLES.iter().any(|r| role.eq_ignore_ascii_case(r))) {
        return true;
    }
    let class_names = element.attr("class").into_iter().flat_map(str::split_ascii_whitespace);
    element.attr("id").into_iter().chain(class_names).any(is_boilerplate_name)
}

/// A `<header>` or `<footer>` of the page, not of an article or section.
fn is_page_furniture(node: ego_tree::NodeRef<'_, Node>) -> bool {
    let is_element = |n: &ego_tree::NodeRef<'_, Node>, names: &[&str]| matches!(n.value(), Node::Element(e) if names.contains(&e.name()));
    is_element(&node, &["header", "footer"])
        && !node.ancestors().any(|a| is_element(&a, &["article", "section", "main", "blockquote"]))
}

fn hides(style: &str) -> bool {
    let compact: String =
        style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

fn is_boilerplate_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("nav") || BOILERPLATE_NAMES.contains(&lower.as_str())
}

fn separate(sink: &mut TextSink, name: &str) {
    if BLOCKS.contains(&name) {
        sink.paragraph();
    } else if LINES.contains(&name) {
        sink.line_break();
    } else if CELLS.contains(&name) {
        sink.space();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        crate::clean::finish(
            &extract_str(html, &Limits::default(), &Budget::start(Limits::default().max_time)).unwrap(),
        )
    }

    #[test]
    fn boilerplate_goes_content_stays() {
        let html = r#"<html><head><title>T</title><style>p{}</style></head><body>
            <div class="navheader"><a href="/">Home</a></div><nav>Menu</nav>
            <h1>Mills</h1><p>Tidal <em>mills</em> ground<br>grain. See <a href="https://x.org">the survey</a>.</p>
            <table><caption>Sites</caption><tr><td>Eling</td><td>1086</td></tr><tr><td>Woodbridge</td><td>1170</td></tr></table>
            <figure><img alt="photo"><figcaption>The sluice gate</figcaption></figure>
            <blockquote>the pond remembers</blockquote><script>var x = 1;</script>
            <ol class="references"><li>Minchinton, W. Early tide mills. doi:10.2307/3104116</li></ol>
            <footer>Copyright</footer></body></html>"#;
        assert_eq!(
            text(html),
            "Mills\n\nTidal mills ground\ngrain. See the survey.\n\nSites\n\nEling 1086\nWoodbridge 1170\n\n\
             The sluice gate\n\nthe pond remembers\n\nMinchinton, W. Early tide mills."
        );
    }

    #[test]
    fn main_element_wins() {
        assert_eq!(
            text("<body><div>chrome</div><main><p>content</p></main><div>more chrome</div>"),
            "content"
        );
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "<div>".repeat(5000) + "x";
        let err =
            extract_str(&deep, &Limits::default(), &Budget::start(Limits::default().max_time)).unwrap_err();
        assert_eq!(err, ExtractError::TooDeep { limit: 512 });
    }
}
