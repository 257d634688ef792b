"""Run inside a network namespace with loopback only (``unshare -n``): `league serve` and a real chromium.

Called by test_page_offline.py as ``python offline_child.py DATA PORT``. Brings loopback up, starts the real
`league serve --data DATA` on 127.0.0.1:PORT, drives Debian chromium through Selenium to the league page and to
/api/docs, and prints one JSON object: every network request each page made (from Chrome's performance log:
URL, status, failure) and the text of the elements that show each page rendered. The test judges it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server",
         "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync",
         "--window-size=1200,2000")


def requests_seen(driver: WebDriver) -> list[dict[str, Any]]:
    """Each request of the performance log since the last read: its URL, HTTP status and failure, if any."""
    by_id: dict[str, dict[str, Any]] = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        method, params = message.get("method", ""), message.get("params", {})
        if method == "Network.requestWillBeSent":
            by_id.setdefault(params["requestId"], {"url": params["request"]["url"], "status": None, "failed": None})
        elif method == "Network.responseReceived" and params["requestId"] in by_id:
            by_id[params["requestId"]]["status"] = params["response"]["status"]
        elif method == "Network.loadingFailed" and params["requestId"] in by_id:
            by_id[params["requestId"]]["failed"] = params.get("errorText") or "failed"
    return list(by_id.values())


def routes_out() -> str:
    """The namespace's routing table (empty but for loopback: what makes the run prove anything)."""
    return subprocess.run(["ip", "route", "show"], capture_output=True, text=True, check=False).stdout


def main(data: Path, port: int) -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    league = Path(sys.executable).with_name("league")
    base = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen([str(league), "serve", "--data", str(data), "--port", str(port), "--db", ""],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    report: dict[str, Any] = {"routes": routes_out()}
    driver: WebDriver | None = None
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(base + "healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"league serve did not start: {server.stderr.read() if server.stderr else ''}")
            time.sleep(0.2)
        report["outside"] = _outside()
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        driver.get(base)
        WebDriverWait(driver, 90).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        report["page"] = {"ready": driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
                          "today": driver.find_element(By.ID, "today-run").text,
                          "requests": requests_seen(driver)}
        driver.get(base + "api/docs")
        WebDriverWait(driver, 90).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".swagger-ui .info .title"))
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock"))
        report["docs"] = {"title": driver.find_element(By.CSS_SELECTOR, ".swagger-ui .info .title").text,
                          "operations": len(driver.find_elements(By.CSS_SELECTOR, ".opblock")),
                          "requests": requests_seen(driver)}
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait(20)
    print(json.dumps(report))


def _outside() -> str:
    """What a connection to a public address gives here: an error, when the namespace has no route out."""
    try:
        httpx.get("http://1.1.1.1/", timeout=3)
    except httpx.TransportError as exc:
        return f"refused: {exc}"
    return "reached"


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
