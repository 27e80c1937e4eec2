#!/usr/bin/env python3
"""Opens a `lab report --format html` page in Debian's Chromium (headless, through Debian's
chromedriver) and reads what the browser laid out of each timeline SVG: the shaded ad window, the
request ticks (segments and playlists), the stall bands, the playhead and the first-frame mark,
with their rendered sizes (getBBox), plus the page's script elements (there must be none: every
name is escaped). Prints one JSON object on stdout; exits 1 with the reason when a step fails.
Run with the Python of .build/lab-venv (`scripts/python-venv.sh lab`).
"""
import argparse
import json
import sys

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service

MEASURE = """
const boxes = (svg, selector) => [...svg.querySelectorAll(selector)].map(e => {
  const b = e.getBBox(); return {x: b.x, y: b.y, width: b.width, height: b.height};
});
return {
  title: document.title,
  scripts: document.querySelectorAll('script').length,
  headings: [...document.querySelectorAll('section.cell h3')].map(h => h.textContent),
  timelines: [...document.querySelectorAll('svg.timeline')].map(svg => ({
    label: svg.getAttribute('aria-label'),
    width: svg.getBoundingClientRect().width,
    height: svg.getBoundingClientRect().height,
    adWindow: boxes(svg, 'rect.ad-window'),
    stalls: boxes(svg, 'rect.stall'),
    segments: svg.querySelectorAll('line.request.segment').length,
    playlists: svg.querySelectorAll('line.request.playlist').length,
    playhead: boxes(svg, 'polyline.playhead'),
    firstFrame: svg.querySelectorAll('line.first-frame').length,
    jumps: svg.querySelectorAll('line.jump').length,
    noAnswer: svg.querySelectorAll('text.no-answer').length,
    legend: [...svg.querySelectorAll('g.legend text')].map(t => t.textContent),
    axis: [...svg.querySelectorAll('text')].map(t => t.textContent).filter(t => /^\\d+(\\.\\d+)? s$/.test(t)),
  })),
};
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the report, file:///.../report.html")
    parser.add_argument("--screenshot", help="write a PNG of the page here")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--timeout", type=float, default=15)
    options = parser.parse_args()

    chrome = webdriver.ChromeOptions()
    chrome.binary_location = options.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1280,1800", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-default-apps"):
        chrome.add_argument(flag)
    result = {"url": options.url}
    step = "start Chromium"
    try:
        driver = webdriver.Chrome(service=Service(executable_path=options.chromedriver), options=chrome)
    except WebDriverException as error:
        result["failed"] = f"{step}: {type(error).__name__}: {str(error).strip()}"
        json.dump(result, sys.stdout, indent=1)
        return 1
    try:
        driver.set_page_load_timeout(options.timeout)
        step = "load the report"
        driver.get(options.url)
        step = "measure the timelines"
        result.update(driver.execute_script(MEASURE))
        if options.screenshot:
            step = "take the screenshot"
            first = driver.find_elements("css selector", "section.cell")
            if first:
                driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", first[0])
            driver.save_screenshot(options.screenshot)
            result["screenshot"] = options.screenshot
    except (TimeoutException, WebDriverException) as error:
        result["failed"] = f"{step}: {type(error).__name__}: {str(error).strip() or 'timed out'}"
    finally:
        driver.quit()
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 1 if "failed" in result else 0


if __name__ == "__main__":
    sys.exit(main())
