#!/usr/bin/env python3
"""Drives the lab page in Debian's Chromium (headless, through Debian's chromedriver: Selenium is
given the driver and the browser, so it downloads nothing): loads the page, checks that every
case is listed, picks a receiver, clicks a verdict and waits for the "Recorded ..." status.
Prints one JSON object on stdout; exits 1 with the reason when a step fails. It cannot see
whether a video plays: headless Chromium has no AirPlay and the suite is HLS.
Run with the Python of .build/lab-venv (`scripts/python-venv.sh lab`).
"""
import argparse
import json
import sys

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import Select, WebDriverWait


def browser(options):
    chrome = webdriver.ChromeOptions()
    chrome.binary_location = options.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1100,1400", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-default-apps"):
        chrome.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=options.chromedriver), options=chrome)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the lab page, http://127.0.0.1:PORT/")
    parser.add_argument("--case", required=True, help="the case to record a verdict for")
    parser.add_argument("--receiver", required=True, help="the receiver to pick (option value: its name)")
    parser.add_argument("--verdict", default="glitch")
    parser.add_argument("--note", default="")
    parser.add_argument("--expect-cases", default="", help="comma-separated case ids the page must list")
    parser.add_argument("--screenshot", help="write a PNG of the page here after recording")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--timeout", type=float, default=15)
    options = parser.parse_args()

    result = {"url": options.url}
    driver = browser(options)
    try:
        driver.set_page_load_timeout(options.timeout)
        wait = WebDriverWait(driver, options.timeout)
        step = "load the page"
        driver.get(options.url)
        result["title"] = driver.title
        step = "list the cases"
        wait.until(conditions.presence_of_element_located((By.CSS_SELECTOR, "#cases .case")))
        listed = [e.get_attribute("id").removeprefix("case-") for e in driver.find_elements(By.CSS_SELECTOR, "#cases .case")]
        result["cases"] = listed
        missing = [c for c in options.expect_cases.split(",") if c and c not in listed]
        if missing:
            raise AssertionError(f"the page does not list {', '.join(missing)}; it lists {', '.join(listed)}")
        step = f"find receiver {options.receiver!r} in the select"
        wait.until(lambda d: options.receiver in [o.get_attribute("value") for o in Select(d.find_element(By.ID, "receiver")).options])
        select = Select(driver.find_element(By.ID, "receiver"))
        result["receivers"] = [o.text for o in select.options if o.get_attribute("value")]
        select.select_by_value(options.receiver)
        if options.note:
            driver.find_element(By.ID, "note").send_keys(options.note)
        step = f"click {options.verdict} for {options.case}"
        button = driver.find_element(By.CSS_SELECTOR, f'#case-{options.case} button[data-verdict="{options.verdict}"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()
        step = "see the Recorded status"
        wait.until(lambda d: d.find_element(By.ID, "status").text.startswith(("Recorded", "Not recorded"))
                   or "error" in (d.find_element(By.ID, "status").get_attribute("class") or ""))
        status = driver.find_element(By.ID, "status")
        result["status"] = status.text
        if not status.text.startswith("Recorded "):
            raise AssertionError(f"the page said {status.text!r}")
        step = "see the verdict in the page's table"
        wait.until(lambda d: options.case in d.find_element(By.ID, "verdicts").text)
        result["verdictsTable"] = driver.find_element(By.ID, "verdicts").text
        driver.execute_script("window.scrollTo(0, 0);")
        if options.screenshot:
            driver.save_screenshot(options.screenshot)
            result["screenshot"] = options.screenshot
    except (AssertionError, TimeoutException, WebDriverException) as error:
        result["failed"] = f"{step}: {type(error).__name__}: {str(error).strip() or 'timed out'}"
    finally:
        driver.quit()
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 1 if "failed" in result else 0


if __name__ == "__main__":
    sys.exit(main())
