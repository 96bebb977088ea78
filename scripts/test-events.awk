# Reads Swift Testing's event stream (JSON Lines, version 0: one record a
# line, strings escaped, so a test's argument never breaks a line) for
# scripts/run-tests and scripts/test-summary. Only counts and the run's
# last message are taken from it; what failed is written out in full by
# Swift Testing's own output.
#
#   mode=progress  a line each time another tenth of the tests is done
#   mode=summary   the run's last line, then 'N passed, N failed'

# The test a record is about; empty for none.
function test_id(line) {
    if (!match(line, /"testID":"([^"\\]|\\.)*"/)) return ""
    return substr(line, RSTART + 10, RLENGTH - 11)
}

# Functions have ids ending in their source location; suites do not.
function is_function(id) {
    return id ~ /\.swift:[0-9]+:[0-9]+$/
}

# The text of a record's first message, its escapes undone.
function message(line,    text) {
    if (!match(line, /"text":"([^"\\]|\\.)*"/)) return ""
    text = substr(line, RSTART + 8, RLENGTH - 9)
    gsub(/\\\//, "/", text)
    gsub(/\\"/, "\"", text)
    gsub(/\\\\/, "\\", text)
    return text
}

function progress(    tenth) {
    if (mode != "progress" || total == 0) return
    tenth = int(done * 10 / total)
    if (tenth > shown_tenth) {
        shown_tenth = tenth
        printf "tests: %d of %d done\n", done, total
        fflush()
    }
}

BEGIN { shown_tenth = 0 }

/^\{"kind":"test",/ {
    if (index($0, "\"kind\":\"function\"")) total++
    next
}

/"kind":"(testEnded|testSkipped)"/ {
    if (is_function(test_id($0))) {
        done++
        if (index($0, "\"kind\":\"testSkipped\"")) skipped++
        progress()
    }
    next
}

/"kind":"issueRecorded"/ {
    if (!index($0, "\"isKnown\":false")) next
    id = test_id($0)
    if (!is_function(id)) {
        stray++
    } else if (!(id in failed)) {
        failed[id] = 1
        failures++
    }
    next
}

/"kind":"runStarted"/ {
    if (mode == "progress") {
        printf "tests: 0 of %d done\n", total
        fflush()
    }
    next
}

/"kind":"runEnded"/ {
    last = message($0)
    symbol = index($0, "\"symbol\":\"fail\"") ? "✘" : "✔"
    ended = 1
}

END {
    if (mode != "summary") exit 0
    if (ended) {
        print symbol " " last
    } else {
        print "✘ the test run did not end (did the test process crash?): its output is in .build/test-output.txt"
    }
    line = sprintf("%d passed, %d failed", total - failures - skipped, failures)
    if (skipped > 0) line = line sprintf(", %d skipped", skipped)
    if (stray > 0) line = line sprintf(", %d issues outside any test", stray)
    print line
    exit (ended && failures == 0 && stray == 0) ? 0 : 1
}
