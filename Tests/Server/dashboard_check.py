#!/usr/bin/env python3
"""Drives the lab dashboard in Debian's Chromium (headless, through Debian's chromedriver).

live URL --cells N: loads /dashboard, prints LOADED once its grid is drawn, then waits until N
cells have been painted by the live feed (server-sent events, marked "fresh"), and reads them.
compare URL --case ID: ticks the two newest runs in the history, clicks Compare, and reads the
row of ID (its change and what). Both print one JSON object on stdout (exit 1 with the reason
when a step fails) and save a screenshot with --screenshot. Run with the Python of
.build/lab-venv (`scripts/python-venv.sh lab`).
"""
import argparse
import json
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def browser(options):
    chrome = webdriver.ChromeOptions()
    chrome.binary_location = options.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1200,1000", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-default-apps"):
        chrome.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=options.chromedriver), options=chrome)


def live(driver, wait, options, result):
    driver.get(options.url)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#grid thead") or "Grid:" in d.find_element(By.ID, "status").text)
    result["paintMs"] = driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0]; return Math.round(performance.now());")
    result["cellsBefore"] = len(driver.find_elements(By.CSS_SELECTOR, "#grid td.v:not(.empty)"))
    print("LOADED", flush=True)
    patient = WebDriverWait(driver, options.timeout)
    seen = {}
    def arrived(d):
        for cell in d.find_elements(By.CSS_SELECTOR, "#grid td.v.fresh"):
            seen[cell.get_attribute("title").split("\n")[0]] = cell.get_attribute("data-verdict")
        return len(seen) >= options.cells
    patient.until(arrived)
    result["live"] = seen
    result["lastEvent"] = driver.execute_script("return document.body.dataset.lastEvent || null;")
    result["progress"] = driver.find_element(By.ID, "progress").text if driver.find_elements(By.ID, "progress-table") else ""
    result["gridTitle"] = driver.find_element(By.ID, "grid-title").text


def compare(driver, wait, options, result):
    driver.get(options.url)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "input.pick")) >= 2)
    picks = driver.find_elements(By.CSS_SELECTOR, "input.pick")
    picks[0].click()
    picks[1].click()
    driver.find_element(By.ID, "compare").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#changes tbody tr"))
    rows = []
    for row in driver.find_elements(By.CSS_SELECTOR, "#changes tbody tr"):
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        rows.append({"class": row.get_attribute("class"), "cells": cells})
    result["rows"] = rows
    result["summary"] = driver.find_element(By.ID, "compare-summary").text
    wanted = [r for r in rows if len(r["cells"]) > 3 and r["cells"][3] == options.case]
    if not wanted:
        raise AssertionError(f"no row for {options.case} in the compare view: {rows}")
    result["row"] = wanted[0]
    driver.execute_script("document.getElementById('compare-view').scrollIntoView();")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["live", "compare"])
    parser.add_argument("url", help="the dashboard, http://127.0.0.1:PORT/dashboard")
    parser.add_argument("--cells", type=int, default=1, help="live: cells the feed must paint")
    parser.add_argument("--case", help="compare: the case whose row to read")
    parser.add_argument("--screenshot", help="write a PNG of the page here at the end")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--timeout", type=float, default=120)
    options = parser.parse_args()
    result = {"url": options.url, "mode": options.mode}
    driver = browser(options)
    step = options.mode
    try:
        driver.set_page_load_timeout(30)
        wait = WebDriverWait(driver, 20)
        (live if options.mode == "live" else compare)(driver, wait, options, result)
        if options.screenshot:
            time.sleep(0.3)
            driver.save_screenshot(options.screenshot)
            result["screenshot"] = options.screenshot
    except (AssertionError, TimeoutException, WebDriverException) as error:
        result["failed"] = f"{step}: {type(error).__name__}: {str(error).strip() or 'timed out'}"
        if options.screenshot:
            try:
                driver.save_screenshot(options.screenshot)
            except WebDriverException:
                pass
    finally:
        driver.quit()
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 1 if "failed" in result else 0


if __name__ == "__main__":
    sys.exit(main())
