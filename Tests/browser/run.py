"""Runs the scenarios of the preview page and of the web component (`<overlayd-overlay>` on pages
of another origin) in headless Chromium against real overlayd processes.

    python3 Tests/browser/run.py --binary .build/debug/overlayd --results Tests/browser/results [NAME...]

Every scenario also fails on any console error or warning it did not expect. A screenshot of each
checked step goes to the results folder. Exit status 0 when every scenario passed.
"""

import argparse
import os
import re
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import component  # noqa: E402
import devices  # noqa: E402
import drawing  # noqa: E402
import reader  # noqa: E402
import web  # noqa: E402
from harness import Browser, Check, Overlayd, SecondOrigin  # noqa: E402


class Context:
    """What a scenario may use; everything it starts is stopped when it ends."""

    def __init__(self, binary, results, browser):
        self.binary = binary
        self.results = results
        self.browser = browser
        self.started = []
        self.scenario = ""

    def server(self, config=None, env=None, port=0):
        server = Overlayd(self.binary, config, env, port)
        self.started.append(server)
        return server

    def second_origin(self):
        origin = SecondOrigin()
        self.started.append(origin)
        return origin

    def screenshot(self, browser, step):
        browser.screenshot(os.path.join(self.results, f"{self.scenario}--{step}.png"))

    def wait_until(self, condition, check, what, timeout=5.0):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                check.expect(False, f"timed out waiting for {what}")
                return False
            time.sleep(0.05)
        return True

    def expect_console(self, check, allowed):
        """No console error or warning since the last look, except those matching `allowed`."""
        for entry in self.browser.console():
            if entry.get("level") not in ("SEVERE", "WARNING"):
                continue
            message = entry.get("message", "")
            if not any(re.search(pattern, message) for pattern in allowed):
                check.expect(False, f"console {entry['level']}: {message}")

    def stop_all(self):
        for started in reversed(self.started):
            started.stop()
        self.started = []


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("names", nargs="*", help="scenarios to run (all by default)")
    options = parser.parse_args()
    os.makedirs(options.results, exist_ok=True)
    for old in os.listdir(options.results):
        if old.endswith(".png"):
            os.remove(os.path.join(options.results, old))
    scenarios = drawing.SCENARIOS + devices.SCENARIOS + web.SCENARIOS + component.SCENARIOS + reader.SCENARIOS
    if options.names:
        scenarios = [s for s in scenarios if s.__name__ in options.names]
    browser = Browser()
    context = Context(os.path.abspath(options.binary), options.results, browser)
    failed = []
    try:
        for scenario in scenarios:
            name = scenario.__name__.replace("_", "-")
            context.scenario = name
            check = Check(name)
            started = time.monotonic()
            browser.console()
            try:
                scenario(check, context)
                context.expect_console(check, [])
            except Exception:
                check.failures.append(traceback.format_exc(limit=4).strip())
            finally:
                context.stop_all()
                browser.open("about:blank")
            elapsed = time.monotonic() - started
            status = "FAIL" if check.failures else "pass"
            print(f"{status}  {name} ({elapsed:.1f} s)" + "".join(f"\n      {n}" for n in check.notes), flush=True)
            for failure in check.failures:
                print("      " + failure.replace("\n", "\n      "), flush=True)
            if check.failures:
                failed.append(name)
    finally:
        browser.quit()
    print(f"\n{len(scenarios) - len(failed)} of {len(scenarios)} scenarios passed; screenshots in {options.results}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
