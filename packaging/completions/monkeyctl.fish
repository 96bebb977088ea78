# fish completion for monkeyctl(1): subcommands, options, and session names
# asked from the running daemon (nothing when it does not answer).

function __monkeyctl_sessions
    set -l socket
    set -l words (commandline -opc)
    if set -l index (contains -i -- --socket $words)
        set socket --socket $words[(math $index + 1)]
    end
    for option in -H --host
        if set -l index (contains -i -- $option $words)
            set -a socket -H $words[(math $index + 1)]
        end
    end
    monkeyctl $socket --json status 2>/dev/null | string replace -rf '.*"name":"([^"]*)".*' '$1'
end

set -l subcommands start stop set clear delete status log tail events wait coverage corpora top ping hello version metrics odds replay help
complete -c monkeyctl -f
complete -c monkeyctl -l socket -r -F -d 'talk to monkeyd at PATH'
complete -c monkeyctl -s H -l host -x -a '(__fish_print_hostnames)' -d 'talk to monkeyd on HOST through ssh'
complete -c monkeyctl -n 'not __fish_seen_subcommand_from top' -l json -d 'print JSON Lines'
complete -c monkeyctl -s h -l help -d 'show help'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -l version -d 'show the version'

complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a start -d 'create a session if missing and start typing'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a stop -d 'stop typing; the log is kept'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a set -d 'change settings of a session'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a clear -d 'remove all entries'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a delete -d 'stop and remove a session'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a status -d 'show sessions'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a log -d 'print the retained entries'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a tail -d 'print the last entries; -f follows'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a events -d 'print what happened; -f follows'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a wait -d 'block until a session hits, stops or types a best'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a coverage -d 'the coverage of a corpus session'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a corpora -d 'the corpora the daemon can cover'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a top -d 'a live view of every session'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a ping -d 'check that monkeyd answers'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a hello -d 'show the versions'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a version -d 'show the versions'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a metrics -d "print the daemon's metrics"
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a odds -d 'the odds of a target (no daemon)'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a replay -d 'type an entry of a seeded session again'
complete -c monkeyctl -n "not __fish_seen_subcommand_from $subcommands" -a help -d 'show help'

complete -c monkeyctl -n "__fish_seen_subcommand_from start stop set clear delete status log tail wait coverage" -a '(__monkeyctl_sessions)' -d session
complete -c monkeyctl -n "__fish_seen_subcommand_from start set odds" -l target -x -d 'text to look for'
complete -c monkeyctl -n "__fish_seen_subcommand_from start set odds replay" -l monkeys -x -d 'monkeys typing'
complete -c monkeyctl -n "__fish_seen_subcommand_from start set odds" -l interval -x -d 'time between ticks'
complete -c monkeyctl -n "__fish_seen_subcommand_from start set odds replay corpora" -l alphabet -x -d 'the characters typed'
complete -c monkeyctl -n "__fish_seen_subcommand_from replay" -l seed -x -d "the session's seed"
complete -c monkeyctl -n "__fish_seen_subcommand_from start set" -l seed -x -d 'type reproducibly from this seed'
complete -c monkeyctl -n "__fish_seen_subcommand_from replay" -l id -x -d "the entry's id"
complete -c monkeyctl -n "__fish_seen_subcommand_from log tail" -s n -x -d 'entries to print'
complete -c monkeyctl -n "__fish_seen_subcommand_from tail" -s f -l follow -d 'keep printing new entries'
complete -c monkeyctl -n "__fish_seen_subcommand_from log tail" -l all -d 'every session'
complete -c monkeyctl -n "__fish_seen_subcommand_from events" -s f -l follow -d 'keep printing new events'
complete -c monkeyctl -n "__fish_seen_subcommand_from events" -l after -x -d 'print events after this id'
complete -c monkeyctl -n "__fish_seen_subcommand_from events" -l session -x -a '(__monkeyctl_sessions)' -d 'only sessions matching'
complete -c monkeyctl -n "__fish_seen_subcommand_from wait" -l hit -d 'until an entry hits the target'
complete -c monkeyctl -n "__fish_seen_subcommand_from wait" -l stopped -d 'until the session stops'
complete -c monkeyctl -n "__fish_seen_subcommand_from wait" -l best -x -d 'until the best progress reaches N'
complete -c monkeyctl -n "__fish_seen_subcommand_from wait" -l coverage -x -d 'until the coverage reaches P percent'
complete -c monkeyctl -n "__fish_seen_subcommand_from start set odds" -l corpus -x -d 'a corpus of corpus_dir'
complete -c monkeyctl -n "__fish_seen_subcommand_from start set odds" -l chunk -x -d 'window length of a corpus session'
complete -c monkeyctl -n "__fish_seen_subcommand_from odds" -l coverage -x -d 'the coverage asked about'
complete -c monkeyctl -n "__fish_seen_subcommand_from coverage" -l work -x -d 'the text of this work'
complete -c monkeyctl -n "__fish_seen_subcommand_from wait" -l timeout -x -d 'give up after this long'
complete -c monkeyctl -n "__fish_seen_subcommand_from top" -l once -d 'print one table and exit'
complete -c monkeyctl -n "__fish_seen_subcommand_from top" -s d -l delay -x -d 'time between refreshes'
complete -c monkeyctl -n "__fish_seen_subcommand_from help" -a "$subcommands"
