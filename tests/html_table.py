#!/usr/bin/env python3
# tests/html_table.py PAGE HEADING [COLUMNS] - the rows of the first table
# after the <h2> HEADING of a page `report --html` wrote, one line each: the
# text of the cells COLUMNS (comma list of 0-based indexes; default all)
# joined by '|'. Exits 1 when the page has no such heading or the heading
# no table: a section left out is an error, not an empty table.
import sys
from html.parser import HTMLParser


class Section(HTMLParser):
    def __init__(self, heading):
        super().__init__(convert_charrefs=True)
        self.heading = heading
        self.h2 = None      # the text of the <h2> being read
        self.state = 'before'  # before, heading (seen), table (inside it), done
        self.rows, self.cell = [], None
        self.found = False  # the table under the heading was read

    def handle_starttag(self, tag, attrs):
        if tag == 'h2':
            self.h2 = ''
        elif tag == 'table' and self.state == 'heading':
            self.state = 'table'
            self.found = True
        elif tag == 'tr' and self.state == 'table':
            self.rows.append([])
        elif tag == 'td' and self.state == 'table':
            self.cell = ''

    def handle_endtag(self, tag):
        if tag == 'h2':
            if self.state == 'before' and self.h2 == self.heading:
                self.state = 'heading'
            elif self.state == 'heading':
                self.state = 'done'  # the next section began: no table
            self.h2 = None
        elif tag == 'td' and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == 'table' and self.state == 'table':
            self.state = 'done'

    def handle_data(self, d):
        if self.h2 is not None:
            self.h2 += d
        if self.cell is not None:
            self.cell += d


page, heading = sys.argv[1], sys.argv[2]
s = Section(heading)
s.feed(open(page).read())
s.close()
if not s.found:
    sys.exit('%s: no table under the heading %r' % (page, heading))
cols = [int(c) for c in sys.argv[3].split(',')] if len(sys.argv) > 3 else None
for r in s.rows:
    if r:  # the header row has no <td>
        print('|'.join(r[c] for c in cols) if cols else '|'.join(r))
