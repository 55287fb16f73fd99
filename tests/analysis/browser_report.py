#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""report.html in a real browser: Debian's chromium, headless, driven through
the DevTools protocol over --remote-debugging-pipe (Python's standard library
only: JSON messages ended by a NUL byte on file descriptors 3 and 4).

    browser_report.py --fixture STRATA_FIXTURE_EXPERIMENT --analyze STRATA_ANALYZE --work-dir DIR

Writes the synthetic experiment of calltree_profile() (analyze_fixtures.hpp),
analyses it with strata-analyze, opens DIR/out/report.html from disk and
checks: no console error, exception or dialog; each section has data; a
call-tree node expands on a click; a click on a call path's name selects it
(the region named </script><img src=x onerror=alert(1)> shows as text, no
<img> exists); a click on a rank's bar shows that location's figures; the
deep link report.html#callpath=<path> opens and selects its call path; a
click on a column header sorts; a table's filter hides the rows without its
text; printed, the navigation and controls are left out; the page does not
overflow a narrow window.
Then the page of gpu_trace() (otf2_fixture.hpp): its GPU section has the
busy bars, the activity strips and the rows; its timeline draws its lanes,
zooms with the buttons, keys and wheel, and shows a tooltip.  Screenshots
(DIR/artifacts/report.png, narrow.png, gpu.png, timeline.png) are kept and
must not be blank.
Without chromium it prints "skipped" with the reason and exits 127
(CTest's SKIP_RETURN_CODE).
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

from e2e_support import Checks  # this folder: Python puts the script's own first on the path

SKIP = 127
ODD = '</script><img src=x onerror=alert(1)>'
CHECKS = Checks('browser_report')
fail, environment, run = CHECKS.fail, CHECKS.environment, CHECKS.run


def find_chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """A headless chromium and one page of it, spoken to through the DevTools pipe."""

    def __init__(self, chromium, profile, log):
        def high(fd):  # out of the way of 3 and 4, where the child expects the pipe
            moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
            os.close(fd)
            return moved

        commands_read, commands_write = map(high, os.pipe())
        events_read, events_write = map(high, os.pipe())

        def child():
            os.dup2(commands_read, 3)  # dup2 clears close-on-exec: these two are inherited
            os.dup2(events_write, 4)

        args = [chromium, '--headless', '--disable-gpu', '--remote-debugging-pipe', '--no-first-run',
                '--no-default-browser-check', '--disable-extensions', '--user-data-dir=' + profile,
                '--window-size=1280,900', 'about:blank']
        if os.geteuid() == 0:
            args.insert(1, '--no-sandbox')  # chromium refuses to run as root with its sandbox
        # Chromium is not ours: without a sanitizer's runtime the sanitizer runs put in LD_PRELOAD
        # (under share/scripts/sanitize.sh it never answered).
        browser_environment = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}
        self.process = subprocess.Popen(args, preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=log, env=browser_environment)
        os.close(commands_read)
        os.close(events_write)
        self.out = commands_write
        self.inp = events_read
        self.buffer = b''
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send('Browser.close', session=False, timeout=5)
        except Exception:  # noqa: BLE001 (it may be gone already)
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.out)
        os.close(self.inp)

    def receive(self, deadline):
        while b'\0' not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('no answer from chromium')
            ready, _, _ = select.select([self.inp], [], [], left)
            if ready:
                chunk = os.read(self.inp, 1 << 16)
                if not chunk:
                    raise EOFError('chromium closed the pipe (exit status %s)' % self.process.poll())
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b'\0', 1)
        return json.loads(message.decode('utf-8'))

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        message = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            message['sessionId'] = self.session
        os.write(self.out, json.dumps(message).encode('utf-8') + b'\0')
        deadline = time.monotonic() + timeout
        while True:
            answer = self.receive(deadline)
            if answer.get('id') == self.next_id:
                if 'error' in answer:
                    fail('%s: %s' % (method, answer['error']))
                return answer.get('result', {})
            self.events.append(answer)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get('method') == method:
                    return self.events.pop(i)
            self.events.append(self.receive(deadline))

    def open(self):
        target = self.send('Target.createTarget', {'url': 'about:blank'}, session=False)['targetId']
        self.session = self.send('Target.attachToTarget', {'targetId': target, 'flatten': True},
                                 session=False)['sessionId']
        for domain in ('Page.enable', 'Runtime.enable', 'Log.enable'):
            self.send(domain)
        self.resize(1280, 900)

    def resize(self, width, height):
        self.send('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': False})

    def navigate(self, url):
        self.events = [e for e in self.events if e.get('method') != 'Page.loadEventFired']
        self.send('Page.navigate', {'url': url})
        self.wait_event('Page.loadEventFired')

    def evaluate(self, expression):
        result = self.send('Runtime.evaluate', {'expression': expression, 'returnByValue': True})
        if 'exceptionDetails' in result:
            fail('the check %r threw: %s' % (expression, result['exceptionDetails']))
        return result['result'].get('value')

    def click(self, selector):
        """A real mouse click in the middle of the element (scrolled into view first)."""
        box = self.evaluate('(() => { const e = document.querySelector(%s); if (!e) return null; '
                            'e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); '
                            'return [r.left + r.width / 2, r.top + r.height / 2]; })()'
                            % json.dumps(selector))
        if box is None:
            fail('nothing to click: %s' % selector)
        for kind in ('mousePressed', 'mouseReleased'):
            self.send('Input.dispatchMouseEvent',
                      {'type': kind, 'x': box[0], 'y': box[1], 'button': 'left', 'clickCount': 1})

    def until(self, expression, what, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(expression):
                return
            time.sleep(0.05)
        fail('%s (still false: %s)' % (what, expression))

    def screenshot(self, path):
        png = base64.b64decode(self.send('Page.captureScreenshot', {'format': 'png'})['data'])
        with open(path, 'wb') as f:
            f.write(png)
        return png

    def problems(self):
        """Console errors, uncaught exceptions and dialogs seen so far."""
        found = []
        for event in self.events:
            method, params = event.get('method'), event.get('params', {})
            if method == 'Runtime.consoleAPICalled' and params.get('type') in ('error', 'assert'):
                values = [a.get('value') for a in params.get('args', [])]
                found.append('console.%s: %s' % (params['type'], values))
            elif method == 'Runtime.exceptionThrown':
                found.append('exception: %s' % params.get('exceptionDetails', {}).get('text'))
            elif method == 'Log.entryAdded' and params.get('entry', {}).get('level') == 'error':
                found.append('log: %s' % params['entry'].get('text'))
            elif method == 'Page.javascriptDialogOpening':
                found.append('a dialog opened: %s' % params.get('message'))
        return found


def png_colours(png):
    """The distinct colours of an 8-bit RGB(A) PNG and its pixel count (decoded here: no imaging library)."""
    if png[:8] != b'\x89PNG\r\n\x1a\n':
        fail('the screenshot is not a PNG')
    at, idat, header = 8, b'', None
    while at < len(png):
        length, kind = struct.unpack('>I4s', png[at:at + 8])
        body = png[at + 8:at + 8 + length]
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        at += 12 + length
    width, height, depth, colour = header[0], header[1], header[2], header[3]
    if depth != 8 or colour not in (2, 6):
        fail('unexpected PNG format: depth %d, colour type %d' % (depth, colour))
    pixel = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * pixel
    previous, colours = bytearray(stride), set()
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - pixel] if x >= pixel else 0
            up, corner = previous[x], previous[x - pixel] if x >= pixel else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        for x in range(0, stride, pixel * 7):  # every 7th pixel is enough to tell a page from a blank
            colours.add(bytes(line[x:x + 3]))
        previous = line
    return colours


def check_not_blank(png, name):
    colours = png_colours(png)
    if len(colours) < 8:
        fail('%s is blank: %d colours' % (name, len(colours)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--fixture', required=True)
    parser.add_argument('--analyze', required=True)
    parser.add_argument('--work-dir', required=True)
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        print('browser_report: skipped: no chromium on the PATH (Debian: apt-get install chromium; '
              'share/scripts/install-dependencies.sh installs it where the archive has it)')
        return SKIP

    work = os.path.abspath(args.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    artifacts = os.path.join(work, 'artifacts')
    os.makedirs(artifacts)
    experiment, output = os.path.join(work, 'experiment'), os.path.join(work, 'out')
    gpu_experiment, gpu_output = os.path.join(work, 'gpu-experiment'), os.path.join(work, 'gpu-out')
    run([args.fixture, experiment, gpu_experiment], cwd=work, env=environment())
    run([args.analyze, '--output', output, experiment], cwd=work, env=environment())
    run([args.analyze, '--output', gpu_output, gpu_experiment], cwd=work, env=environment())
    page = 'file://' + urllib.parse.quote(os.path.join(output, 'report.html'))
    gpu_page = 'file://' + urllib.parse.quote(os.path.join(gpu_output, 'report.html'))

    with tempfile.TemporaryDirectory() as profile, open(os.path.join(artifacts, 'chromium.log'), 'wb') as log:
        browser = Browser(chromium, profile, log)
        try:
            browser.open()
            check_page(browser, page, artifacts)
            check_gpu_page(browser, gpu_page, artifacts)
            problems = browser.problems()
            if problems:
                fail('the page reported:\n  ' + '\n  '.join(problems))
        finally:
            browser.close()
    print('browser_report: ok (screenshots in %s)' % artifacts)
    return 0


def check_page(browser, page, artifacts):
    browser.navigate(page)
    # Each section has something in it besides its heading.
    sections = browser.evaluate(
        'Array.from(document.querySelectorAll("main > section")).map(s => [s.querySelector("h2").id, '
        's.querySelectorAll("table, svg, article, li, p.none, .pop-node, pre").length])')
    ids = [s[0] for s in sections]
    for expected in ('advice', 'overview', 'summary', 'load-balance', 'calltree', 'heatmap', 'reports'):
        if expected not in ids:
            fail('no section %s: %s' % (expected, ids))
    empty = [s[0] for s in sections if s[1] == 0]
    if empty:
        fail('sections without data: %s' % empty)
    if browser.evaluate('document.querySelectorAll(".pop-node").length') != 8:
        fail('the POP tree should have 8 nodes')
    if browser.evaluate('document.querySelectorAll("#heatmap ~ div rect[class^=h]").length') < 10:
        fail('the heatmap has too few cells')

    # The tree starts with the roots' children shown; main/solve is closed.
    row = 'document.querySelector("tr[data-id=\\"%d\\"]")'
    if not browser.evaluate('!%s.hidden && %s.hidden' % (row % 1, row % 2)):
        fail('main/solve should show and its callees not, before a click')
    browser.click('tr[data-id="1"] button.ct-toggle')
    browser.until('!%s.hidden && %s.querySelector("button").getAttribute("aria-expanded") === "true"'
                  % (row % 2, row % 1), 'a click on the toggle of main/solve shows its callees')

    # A click on the odd region's name selects it; its name is text, nothing ran.
    browser.click('tr[data-id="2"] a')
    browser.until('(document.querySelector("#ct-detail h3") || {}).textContent === %s'
                  % json.dumps('main/solve/' + ODD), 'the click selects main/solve/<odd>')
    if browser.evaluate('%s.querySelector("a").textContent' % (row % 2)) != ODD:
        fail('the odd region name is not shown as text')
    if browser.evaluate('document.querySelectorAll("img").length') != 0:
        fail('an <img> element exists: a name was parsed as markup')
    if not browser.evaluate('location.hash.startsWith("#callpath=main%2Fsolve%2F%3C%2Fscript%3E")'):
        fail('the selection is not in the address: %s' % browser.evaluate('location.hash'))

    # A click on rank 1's bar (location 2) shows its figures: 1.50 s exclusive time there.
    browser.click('#ct-detail rect.ct-bar[data-location="2"]')
    browser.until('!!document.querySelector("#ct-location")', 'a click on a bar shows its location')
    cells = browser.evaluate('Array.from(document.querySelectorAll("#ct-location tbody tr")).map('
                             'r => [r.cells[0].textContent, r.cells[1].textContent])')
    if ['time_exclusive', '1.50 s'] not in cells or ['visits', '4'] not in cells:
        fail('rank 1 thread 0 on main/solve/<odd> should show 1.50 s and 4 visits: %s' % cells)
    if not browser.evaluate('document.querySelector("#ct-location caption").textContent.startsWith('
                            '"rank 1 thread 0")'):
        fail('the location table names another location')
    width = browser.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')
    if width[0] > width[1] + 1:
        fail('with a location chosen the page is %d px wide in a %d px window' % (width[0], width[1]))
    # The metric chooser redraws the bars.
    browser.evaluate('(() => { const s = document.getElementById("ct-metric"); s.value = "2"; '
                     's.dispatchEvent(new Event("change")); })()')
    title = browser.evaluate('document.querySelector("#ct-detail rect.ct-bar[data-location=\\"2\\"] title")'
                             '.textContent')
    if title != 'rank 1 thread 0: 4 (4)':
        fail('visits on rank 1 thread 0 should read 4: %r' % title)
    browser.evaluate('document.getElementById("calltree").scrollIntoView()')
    check_not_blank(browser.screenshot(os.path.join(artifacts, 'report.png')), 'report.png')

    # The deep link opens a fresh page with its call path (below a closed node) selected.
    browser.navigate('about:blank')
    browser.navigate(page + '#callpath=' + urllib.parse.quote('main/solve/n=4', safe=''))
    browser.until('(document.querySelector("tr.ct-selected") || {}).getAttribute && '
                  'document.querySelector("tr.ct-selected").getAttribute("data-id") === "3" && '
                  '!document.querySelector("tr.ct-selected").hidden && '
                  'document.querySelector("#ct-detail h3").textContent === "main/solve/n=4"',
                  'report.html#callpath=main%2Fsolve%2Fn%3D4 selects main/solve/n=4')

    # A click on a column header sorts (the load-balance call paths by their first column).
    browser.click('#report-loadbalance ~ div table.sortable th')
    browser.until('document.querySelector("#report-loadbalance ~ div table.sortable th")'
                  '.getAttribute("aria-sort") === "ascending"', 'a click on a header sorts')
    if not browser.evaluate(
            '(rows => { const t = rows.map(r => r.cells[0].textContent), n = t.map(Number); '
            'const numbers = n.every(x => !isNaN(x)); return rows.length > 1 && t.every((x, i) => i === 0 || '
            '(numbers ? n[i - 1] <= n[i] : t[i - 1].localeCompare(x) <= 0)); })(Array.from('
            'document.querySelector("#report-loadbalance ~ div table.sortable").tBodies[0].rows))'):
        fail('the column is not sorted after the click')

    # A filter above a long table hides the rows without its text.
    filtered = browser.evaluate(
        '(() => { const input = document.querySelector("input.filter"); if (!input) return null;'
        ' let table = input.nextElementSibling; if (table.tagName !== "TABLE") table = table.querySelector("table");'
        ' const rows = Array.from(table.tBodies[0].rows), word = rows[rows.length - 1].cells[0].textContent;'
        ' input.value = word; input.dispatchEvent(new Event("input"));'
        ' const shown = rows.filter(r => !r.hidden).length;'
        ' input.value = ""; input.dispatchEvent(new Event("input"));'
        ' return [rows.length, shown, rows.filter(r => !r.hidden).length]; })()')
    if not filtered or not (1 <= filtered[1] < filtered[0] and filtered[2] == filtered[0]):
        fail('a table\'s filter should hide the rows without its text, and show all when emptied: %s' % filtered)
    # Printed: no navigation or controls, the folded parts open.
    browser.send('Emulation.setEmulatedMedia', {'media': 'print'})
    printed = browser.evaluate('[getComputedStyle(document.querySelector("nav")).display,'
                               ' getComputedStyle(document.querySelector("input.filter")).display]')
    browser.send('Emulation.setEmulatedMedia', {'media': ''})
    if printed != ['none', 'none']:
        fail('the navigation and the filters should not be printed: %s' % printed)

    # A narrow window: nothing wider than the window but what scrolls inside its own box.
    browser.resize(420, 900)
    browser.navigate('about:blank')
    browser.navigate(page)
    width = browser.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')
    if width[0] > width[1] + 1:
        fail('the page is %d px wide in a %d px window' % (width[0], width[1]))
    browser.evaluate('document.getElementById("overview").scrollIntoView()')
    check_not_blank(browser.screenshot(os.path.join(artifacts, 'narrow.png')), 'narrow.png')



def check_gpu_page(browser, page, artifacts):
    """The GPU section of gpu_trace()'s page (otf2_fixture.hpp: 3 GPUs, 4 streams, 4 kernels) has data."""
    browser.resize(1200, 900)
    browser.navigate('about:blank')
    browser.navigate(page)
    counts = browser.evaluate(
        '(s => [s.querySelectorAll("rect.g-busy").length, '
        's.querySelectorAll("svg.gpu-activity path.g-activity").length, s.querySelectorAll("table tbody tr").length, s.querySelectorAll("p.none").length])'
        '(document.getElementById("gpu").closest("section"))')
    # Busy bars: 3 GPUs + 4 streams + 2 legend swatches; 3 activity strips; 7 GPU/stream rows + 4 kernels.
    if counts != [9, 3, 11, 0]:
        fail('the GPU section should have 9 busy bars, 3 activity strips and 11 rows: %s' % counts)
    width = browser.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')
    if width[0] > width[1] + 1:
        fail('the GPU page is %d px wide in a %d px window' % (width[0], width[1]))
    browser.evaluate('document.getElementById("gpu").scrollIntoView()')
    check_not_blank(browser.screenshot(os.path.join(artifacts, 'gpu.png')), 'gpu.png')

    check_timeline(browser, artifacts)

    # The iterations' command: the Copy button selects it (and copies it where the page may).
    command = browser.evaluate('document.getElementById("iteration-command").textContent')
    if not command.startswith('strata-analyze --iter-start '):
        fail('the iterations section has no command to copy: %r' % command)
    browser.click('button.copy')
    browser.until('window.getSelection().toString() === document.getElementById("iteration-command").textContent',
                  'a click on Copy selects the command')


def check_timeline(browser, artifacts):
    """The timeline of gpu_trace()'s page: lanes drawn on the canvas, the buttons, keys and
    wheel zoom, a tooltip where the pointer is, and the region instances in the detail window."""
    browser.evaluate('document.getElementById("timeline").scrollIntoView()')
    lanes = browser.evaluate('JSON.parse(document.getElementById("timeline-data").textContent).lanes.length')
    if lanes != 6:  # rank 0: its thread and 3 streams; rank 1: its thread and 1 stream
        fail('the timeline should have 6 lanes: %s' % lanes)
    # Coloured pixels in the lanes (the canvas is white where nothing is drawn).
    coloured = browser.evaluate(
        '(() => { const c = document.getElementById("tl-canvas"), r = window.devicePixelRatio || 1;'
        ' const d = c.getContext("2d").getImageData(160 * r, 26 * r, c.width - 160 * r, 6 * 16 * r).data;'
        ' let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) ++n;'
        ' return n; })()')
    if not coloured or coloured < 1000:
        fail('the timeline\'s lanes are not drawn: %s coloured pixels' % coloured)
    whole = browser.evaluate('document.getElementById("tl-range").textContent')
    if not whole.startswith('Showing 0'):
        fail('the timeline does not start on the whole run: %r' % whole)
    browser.click('button[data-tl="in"]')
    zoomed = browser.evaluate('document.getElementById("tl-range").textContent')
    if zoomed == whole:
        fail('Zoom in did not change the view: %r' % zoomed)
    browser.click('button[data-tl="all"]')
    if browser.evaluate('document.getElementById("tl-range").textContent') != whole:
        fail('Whole run did not come back to the whole run')
    # Keys and the wheel, once the timeline is chosen.
    keyed = browser.evaluate(
        '(() => { const c = document.getElementById("tl-canvas"); c.focus();'
        ' c.dispatchEvent(new KeyboardEvent("keydown", {key: "+", bubbles: true}));'
        ' const after = document.getElementById("tl-range").textContent;'
        ' c.dispatchEvent(new KeyboardEvent("keydown", {key: "0", bubbles: true})); return after; })()')
    if keyed == whole:
        fail('the + key did not zoom in')
    wheeled = browser.evaluate(
        '(() => { const c = document.getElementById("tl-canvas"), b = c.getBoundingClientRect();'
        ' c.dispatchEvent(new WheelEvent("wheel", {deltaY: -100, clientX: b.left + 400, clientY: b.top + 40,'
        ' bubbles: true, cancelable: true})); return document.getElementById("tl-range").textContent; })()')
    if wheeled == whole:
        fail('the wheel did not zoom in the chosen timeline')
    browser.click('button[data-tl="all"]')
    # A tooltip on rank 0's thread, halfway through the run.
    tip = browser.evaluate(
        '(() => { const c = document.getElementById("tl-canvas"), b = c.getBoundingClientRect();'
        ' c.dispatchEvent(new MouseEvent("mousemove", {clientX: b.left + 150 + (b.width - 150) / 2,'
        ' clientY: b.top + 26 + 8, bubbles: true}));'
        ' const t = document.getElementById("tl-tip"); return [t.hidden, t.textContent]; })()')
    if tip[0] or not tip[1].startswith('rank 0'):
        fail('no tooltip over rank 0\'s lane: %s' % tip)
    # The whole run is the detail window of this small trace: a tooltip names a region there.
    if '(' not in tip[1] or 'idle' in tip[1]:
        fail('the tooltip inside the detail window should name the region under the pointer: %r' % tip[1])
    check_not_blank(browser.screenshot(os.path.join(artifacts, 'timeline.png')), 'timeline.png')


if __name__ == '__main__':
    sys.exit(main())
