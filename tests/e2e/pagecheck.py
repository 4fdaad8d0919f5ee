"""One check of a whole page as a person sees it: ``assert_page_sound(page, where, watch)``.

It fails, naming the offending text and element, when

* any text the page shows contains ``null``, ``undefined``, ``NaN`` or ``[object Object]``
  (a value a script failed to fill in): the text of every rendered element, the tooltips
  (``title``, an SVG's ``<title>``), ``aria-label``, ``alt``, ``placeholder``, the options of
  a shown list and the document's title;
* the page scrolls sideways (the document is wider than the window), naming the elements that
  stick out on the right;
* the page logged a console error, a Content-Security-Policy violation or an uncaught script
  error (``watch``: the e2e conftest's ``new_page.watch(page)``).

The words are matched whole and case-sensitively: German "Null" or "nullte" are words, the
lower-case ``null`` a script writes is not (the German texts say "0" or "kein").
"""

from __future__ import annotations

from playwright.sync_api import Page

FIND_DEFECTS = r"""() => {
    const BAD = /\bnull\b|\bundefined\b|\bNaN\b|\[object Object\]/;
    const ATTRIBUTES = ["title", "aria-label", "aria-description", "aria-valuetext", "alt",
                        "placeholder"];
    const name = (element) => {
        const parts = [];
        for (let node = element; node && node.nodeType === 1 && parts.length < 6;
             node = node.parentElement) {
            let part = node.localName;
            if (node.id) part += "#" + node.id;
            else if (typeof node.className === "string" && node.className.trim())
                part += "." + node.className.trim().split(/\s+/).slice(0, 2).join(".");
            parts.unshift(part);
            if (node.id) break;
        }
        return parts.join(" > ");
    };
    const shown = (element) => {
        // The text of an option, an SVG <title> or <desc> shows when its owner does.
        const owner = element.closest("select") || (
            element instanceof SVGElement && ["title", "desc"].includes(element.localName)
                ? element.parentElement : element);
        return owner.checkVisibility({visibilityProperty: true});
    };
    const texts = [];
    if (BAD.test(document.title)) texts.push({where: "the document's title", text: document.title});
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || parent.closest("script, style, template, noscript")) continue;
        if (BAD.test(node.data) && shown(parent)) {
            const whole = parent.textContent.trim().replace(/\s+/g, " ").slice(0, 160);
            const where = whole === node.data.trim() ? name(parent)
                : `${name(parent)}, which reads ${JSON.stringify(whole)}`;
            texts.push({where, text: node.data.trim().slice(0, 200)});
        }
    }
    const selector = ATTRIBUTES.map((attribute) => `[${attribute}]`).join(", ")
        + ", input[type=submit][value], input[type=button][value]";
    for (const element of document.body.querySelectorAll(selector)) {
        if (!shown(element)) continue;
        for (const attribute of [...ATTRIBUTES, "value"]) {
            const value = element.getAttribute(attribute);
            if (value !== null && BAD.test(value))
                texts.push({where: `${name(element)} [${attribute}]`, text: value.slice(0, 200)});
        }
    }

    const width = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    const wide = [];
    if (scrollWidth > width) {
        // The elements that stick out on the right and that no box between them and the
        // page clips (following their containing blocks: an absolutely placed element
        // escapes a scrolling box that is not positioned), outermost first.
        const right = (element) => element.getBoundingClientRect().right + window.scrollX;
        const clipped = (element) => {
            let position = getComputedStyle(element).position;
            if (position === "fixed") return true;
            for (let node = element.parentElement; node && node !== document.body;
                 node = node.parentElement) {
                const style = getComputedStyle(node);
                if (position === "absolute" && style.position === "static"
                    && style.transform === "none") continue;
                if (style.overflowX !== "visible") return true;
                position = style.position;
            }
            return false;
        };
        const grows = (element) => element !== document.body
            && right(element) > width + 0.5 && element.getBoundingClientRect().width > 0
            && !clipped(element);
        for (const element of document.body.querySelectorAll("*")) {
            if (!grows(element) || grows(element.parentElement)) continue;
            wide.push(`${name(element)} (right edge at ${Math.round(right(element))}px)`);
            if (wide.length >= 6) break;
        }
    }
    return {texts, width, scrollWidth, wide};
}"""


def page_defects(page: Page, watch=None) -> list[str]:
    """What is wrong with the page as it shows now, each as one line (none: sound)."""
    found = page.evaluate(FIND_DEFECTS)
    problems = [f"shows {item['text']!r} in {item['where']}" for item in found["texts"]]
    if found["scrollWidth"] > found["width"]:
        problems.append(
            f"scrolls sideways: the document is {found['scrollWidth']}px wide in a window of "
            f"{found['width']}px; sticking out: " + "; ".join(found["wide"] or ["(none found)"])
        )
    if watch is not None:
        problems += [f"CSP violation: {text}" for text in watch.violations]
        errors = [text for text in watch.console_errors if text not in watch.violations]
        problems += [f"console error: {text}" for text in errors]
        problems += [f"uncaught error: {text}" for text in watch.page_errors]
    return problems


def assert_page_sound(page: Page, where: str, watch=None) -> None:
    """Fail, naming what is wrong, unless the page shows no unfilled value, does not scroll
    sideways and (with ``watch``) has logged no console error, CSP violation or uncaught
    error. ``where``: the step, for the failure message."""
    problems = page_defects(page, watch)
    if problems:
        size = page.viewport_size or {}
        raise AssertionError(
            f"{where} ({page.url} at {size.get('width')}x{size.get('height')}):\n  "
            + "\n  ".join(problems)
        )


# The pairs of the elements that the selectors find (each visible one) that overlap, by name:
# page.evaluate(OVERLAPS, ["#a", ".b"]) == [] when none does.
OVERLAPS = """(selectors) => {
    const boxes = [];
    for (const selector of selectors) {
        document.querySelectorAll(selector).forEach((node, index) => {
            const box = node.getBoundingClientRect();
            if (box.width && box.height) boxes.push({name: `${selector}[${index}]`, box});
        });
    }
    const found = [];
    for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i].box;
            const b = boxes[j].box;
            const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (x > 0.5 && y > 0.5) found.push(`${boxes[i].name} / ${boxes[j].name}`);
        }
    }
    return found;
}"""
