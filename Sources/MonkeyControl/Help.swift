import MonkeyCore
import MonkeyShell

/// The text of `monkeyctl --help` and `monkeyctl SUBCOMMAND --help`.
enum Help {
    static func text(for topic: Subcommand?) -> String {
        guard let topic else { return global }
        return subcommand(topic) + "\n\n" + commonOptions
    }

    static var global: String {
        """
        Usage: monkeyctl [-H [USER@]HOST] [--socket PATH] [--json] SUBCOMMAND [SESSION] [OPTIONS]

        Control monkeyd, the infinite-monkey typewriter daemon.

        Subcommands:
          start [SESSION] [SETTINGS]     create SESSION if missing, apply SETTINGS, start typing
          stop [SESSION]                 stop typing; the log is kept
          set [SESSION] SETTINGS         change settings of SESSION while it types
          clear [SESSION]                remove all entries; numbering restarts at 1
          delete [SESSION]               stop and remove SESSION and its log
          status [SESSION]               show SESSION, or every session
          log [SESSION...] [-n N]        print the retained entries, or the last N
          tail [SESSION...] [-n N] [-f]  print the last 10 (or N) entries; -f follows
                                         (several sessions, globs such as 'web-*', or --all)
          events [-f] [--after ID]       print what happened (started, hit, ...); -f follows
          wait [SESSION] --hit|--stopped|--best N|--coverage P [--timeout DURATION]
                                         block until SESSION hits, stops, types a best or covers P %
          coverage [SESSION] [--work W]  a corpus session's works covered, or one work's text
          corpora [--alphabet CHARS]     the corpora of the daemon's corpus_dir: works, characters
          top [--once] [-d DURATION]     a live full-screen view of every session (q quits)
          ping                           check that monkeyd answers
          hello, version                 show the versions of monkeyctl and monkeyd
          metrics                        print the daemon's metrics (Prometheus text format)
          coverage [SESSION]             a corpus session's coverage; -H several times: the union
          odds --target TEXT [SETTINGS]  the chance that an entry hits TEXT, and the wait (no daemon)
          odds --corpus NAME|DIR [--chunk K] [--coverage P] [SETTINGS]
                                         the windows (and time) to cover P % of a corpus (no daemon)
          replay --seed S --id ID --monkeys N [--alphabet CHARS]
                                         type entry ID of a session with seed S again (no daemon)
          help [SUBCOMMAND]              show this help, or a subcommand's

        SESSION defaults to "default". 'monkeyctl SUBCOMMAND --help' shows more.

        Settings (start, set, odds):
        \(settingsList)
          --seed S               (start, set) type reproducibly from seed S; "" for fresh randomness

        \(commonOptions)

        Environment:
          MONKEYD_SOCKET   socket path when --socket is not given
          MONKEYCTL_HOST   the host for -H when it is not given
          MONKEYCTL_SSH    the ssh command for -H, run by sh (default: ssh)
          XDG_RUNTIME_DIR  without either, the socket is $XDG_RUNTIME_DIR/monkeyd/monkeyd.sock
                           (as root: \(DefaultPaths.systemSocket))
          NO_COLOR         when set and not empty, never colour the output

        Exit status:
        \(exitStatusList)
        """
    }

    private static var settingsList: String {
        """
          --target TEXT          text to look for in every entry ("" for none)
          --monkeys N            monkeys typing, one character each per tick (at least 1)
          --interval DURATION    time between ticks: 250ms, 1.5s, 2min, 1h; a bare whole number is ms
          --alphabet CHARS       the characters the monkeys type
          --corpus NAME          (start, set) cover corpus NAME of corpus_dir instead of a target
                                 ("" for a plain session again)
          --chunk K              (start, set) a corpus session's window length, 1 to 64 (default 9)
        """
    }

    private static var commonOptions: String {
        """
        Options for every subcommand:
          --socket PATH          talk to monkeyd at PATH (with -H: on HOST)
          -H, --host [USER@]HOST talk to monkeyd on HOST through ssh (several times for
                                 status and coverage: one table of every host)
          --json                 print JSON Lines: one object per record, or {"ok":true,"message":...}
          -h, --help             show help and exit
          --version              show the version of monkeyctl and exit
        """
    }

    private static var exitStatusList: String {
        ExitCode.table.map { row in
            let code = String(row.code)
            return "  " + code + String(repeating: " ", count: 6 - code.count) + row.meaning
        }.joined(separator: "\n")
    }

    private static func subcommand(_ subcommand: Subcommand) -> String {
        switch subcommand {
        case .start:
            """
            Usage: monkeyctl start [SESSION] [SETTINGS]

            Creates SESSION if it does not exist, applies SETTINGS and starts typing.
            Starting a session that types already only applies SETTINGS.
            Prints the daemon's answer, such as "started default".

            Settings:
            \(settingsList)
              --seed S               type reproducibly: entry ID's text is a function of S and ID
                                     (0 to 18446744073709551615; "" returns to fresh randomness)
            """
        case .stop:
            """
            Usage: monkeyctl stop [SESSION]

            Stops typing. The log and the settings are kept; 'start' resumes.
            """
        case .set:
            """
            Usage: monkeyctl set [SESSION] SETTINGS

            Changes settings of an existing session; a typing session uses them
            from its next tick. At least one setting is needed.

            Settings:
            \(settingsList)
              --seed S               type reproducibly: entry ID's text is a function of S and ID
                                     (0 to 18446744073709551615; "" returns to fresh randomness)
            """
        case .clear:
            """
            Usage: monkeyctl clear [SESSION]

            Removes every entry of SESSION. Numbering restarts at 1; ids never repeat.
            """
        case .delete:
            """
            Usage: monkeyctl delete [SESSION]

            Stops SESSION and removes it with its log. This cannot be undone.
            """
        case .status:
            """
            Usage: monkeyctl status [SESSION]

            Shows SESSION, or every session when none is named, one line each:
            name, state, monkeys and interval, entries typed and kept, hits, and the
            best progress towards the target.
            """
        case .log:
            """
            Usage: monkeyctl log [SESSION...] [--all] [-n N]

            Prints the retained entries of SESSION, oldest first, as "7. qwert";
            hits are marked "*hit*". With several sessions or globs ("exp-*"),
            each session's in turn, every line after its session's name.

              -n, --lines N          only the last N entries (of each session)
              --all                  every session ("*")
            """
        case .tail:
            """
            Usage: monkeyctl tail [SESSION...] [--all] [-n N] [-f]

            Prints the last 10 entries of SESSION, oldest first, as "7. qwert";
            hits are marked "*hit*". With several sessions or globs ("exp-*"),
            every line starts with its session's name, padded to one width.

              -n, --lines N          the last N entries instead of 10 (0 for none), per session
              --all                  every session ("*"), and those created while following
              -f, --follow           then keep printing entries as they are typed, until
                                     Ctrl-C (exit status 0). A follower too slow to keep up
                                     sees "... N entries skipped"; a deleted session, "NAME deleted".
            """
        case .events:
            """
            Usage: monkeyctl events [-f] [--after ID] [--session GLOB]

            Prints the daemon's events, oldest first, one a line with its id first:
              #12 2026-11-30T22:37:13.123Z demo hit entry_id=2 number=2 text=ab
            Kinds: created, started, stopped, updated, cleared, deleted, hit, best
            (best progress grew), restored (after a restart). Without -f, the
            retained events (after ID); with -f, those after ID (or only new ones)
            and then new ones as they happen, until Ctrl-C. Ids never repeat: a
            script resumes with --after the last id it printed; "... N entries
            skipped" says events older than the daemon keeps were missed.

              -f, --follow           keep printing new events until Ctrl-C
              --after ID             only events after ID
              --session GLOB         only events of sessions GLOB matches
            """
        case .corpora:
            """
            Usage: monkeyctl corpora [--alphabet CHARS]

            The corpora of the daemon's corpus_dir, one line each: its name, its works
            and its characters normalised for CHARS (the default alphabet when not
            given), or why the directory is no corpus.

              --alphabet CHARS       the alphabet to normalise for
            """
        case .coverage:
            """
            Usage: monkeyctl coverage [SESSION] [--work W] [-H HOST]...

            The coverage of a corpus session: a table of its works (name, characters,
            covered, percent and a bar), or with --work the work's normalised text,
            its covered characters bold in colour on a terminal and every uncovered
            character shown as _ otherwise.
            With -H given several times, asks every host for the same-named session's
            coverage as bitmap lines, checks that they run the same experiment (the
            corpus digest, the alphabet and the chunk), and prints the union of the
            works' table: a character is covered if any host covered it. A host that
            differs is named, and nothing is united.

              --work W               the text of work W (one host only)
            """
        case .wait:
            """
            Usage: monkeyctl wait [SESSION] --hit|--stopped|--best N|--coverage P [--timeout DURATION]

            Waits until SESSION types a hit (typed after the wait began), stops, or
            has best progress of at least N characters, and prints what met it.
            Exit status 0 when it was met, 5 when the timeout passed first, 1 when
            monkeyd refused (no such session, or it was deleted meanwhile). Warns on
            stderr, and waits all the same, when the condition cannot come true as
            the session is (no target, a target it can never type, a best longer
            than the target, a stopped session).

              --hit                  a hit typed from now on
              --stopped              the session stops (at once if it is stopped)
              --best N               best progress of N characters (at once if it has it)
              --coverage P           a corpus session's coverage of P % (1 to 100; at once if it has it)
              --timeout DURATION     give up after DURATION, 1ns to 24h (like 50ms, 10s, 2min)
            """
        case .top:
            """
            Usage: monkeyctl top [--once] [-d DURATION]

            A full-screen view of every session, refreshed every second and as soon as
            monkeyd reports a hit, a start, a stop or a new session: the daemon's
            version, uptime, sessions, clients and totals, then one row per session
            with its state, monkeys, interval, entries a second, entries typed, hits,
            the chance of a hit so far, the expected wait for the next one, and its
            best progress drawn against the target (the part typed so far highlighted).

            Keys:
              up, down, PgUp, PgDn, Home, End   select a session
              space                  start or stop the selected session
              c                      clear it (asks first: y clears, any other key keeps it)
              Enter                  show its new entries in a lower pane; Enter again hides it
              o                      sort by the next of: name, rate, typed, hits, chance,
                                     wait, best
              q, Ctrl-C              quit, leaving the terminal as it was

            When standard output is not a terminal, or with --once, it prints one table
            of every session, sorted by name, and exits.

              --once                 print one table and exit, even on a terminal
              -d, --delay DURATION   ask for fresh figures every DURATION (100ms to 24h;
                                     default 1s); events still show at once
            """
        case .ping:
            """
            Usage: monkeyctl ping

            Asks monkeyd to answer; prints "pong". Exit status 3 when it cannot be reached.
            """
        case .hello, .version:
            """
            Usage: monkeyctl hello
                   monkeyctl version

            Shows the version of monkeyd and of its protocol; 'version' shows the
            version of monkeyctl (\(Engine.version)) first.
            """
        case .metrics:
            """
            Usage: monkeyctl metrics

            Prints the daemon's metrics as monkeyd's METRICS verb gives them: the
            Prometheus text exposition format, version 0.0.4, exactly as an HTTP
            scrape of metrics_listen would read it, so that it can be piped to
            'promtool check metrics' or saved for a textfile collector.
            With --json, one object per sample instead:
              {"name":"monkeyd_session_entries_total","type":"counter",
               "labels":{"session":"default"},"value":42}
            with the family's type, and values as JSON numbers (or the strings
            "+Inf", "-Inf" and "NaN"). The families are listed in monkeyd(8).
            """
        case .odds:
            """
            Usage: monkeyctl odds --target TEXT [--monkeys N] [--alphabet CHARS] [--interval DURATION]

            Computes, here and without a daemon, with the daemon's own code, the odds
            of a session with these settings (the defaults are a new session's:
            1 monkey, the letters a to z, 100ms): p, the probability that one entry
            contains TEXT; 1/p, the mean number of entries from one hit to the next;
            and that many intervals, the mean wait. Prints one line, such as
              1 in 17,576 entries; about 29 minutes at 100ms
            or, for a target that can never be typed, why:
              never: the alphabet lacks "y"
            With --json, one object with the fields p_hit, expected_entries and
            expected_seconds of STATUS.

            monkeyctl odds --corpus NAME|DIR [--chunk K] [--alphabet CHARS] [--coverage P]
                           [--monkeys N --interval DURATION]
            prints a corpus's size and distinct chunks of K (9) characters, and the
            windows after which uniform typing is expected to cover P % (99.99) of
            it; with --monkeys and --interval, how long that takes. NAME is looked up
            in the corpus_dir of your daemon's configuration; DIR holds a /.

            Settings:
            \(settingsList)
            """
        case .replay:
            """
            Usage: monkeyctl replay --seed S --id ID --monkeys N [--alphabet CHARS]

            Prints the text of entry ID of a session typing with seed S, N monkeys
            and the alphabet CHARS (default: the letters a to z), computed here
            without a daemon, exactly as monkeyd types it (see "Reproducible
            typing" in monkeyd(8)). With --json: {"seed":S,"id":ID,...,"text":...}.

              --seed S               the session's seed, 0 to 18446744073709551615
              --id ID                the entry's id (not its number), at least 1
              --monkeys N            the number of monkeys when the entry was typed
              --alphabet CHARS       the alphabet when the entry was typed
            """
        case .bridge:
            """
            Usage: monkeyctl bridge

            Joins standard input and output to monkeyd's socket, byte for byte, as
            systemd-stdio-bridge does: what comes in is sent to the daemon, what the
            daemon answers goes out. The end of the input shuts the sending side;
            the bridge ends when the daemon has answered and closed (exit status 0).
            It is what 'ssh HOST monkeyctl bridge' runs on HOST, to speak monkeyd's
            protocol there with the rights of the ssh user.
            Exit status 3 when monkeyd cannot be reached, 4 when the connection breaks.
            """
        case .help:
            """
            Usage: monkeyctl help [SUBCOMMAND]

            Shows the help of monkeyctl, or of SUBCOMMAND.
            """
        }
    }
}
