# bash completion for monkeyctl(1): subcommands, options, and session names
# asked from the running daemon (nothing when it does not answer).

_monkeyctl_sessions() {
    local socket=() i
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        case ${COMP_WORDS[i]} in
        --socket | -H | --host) socket+=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}") ;;
        esac
    done
    monkeyctl "${socket[@]}" --json status 2>/dev/null |
        sed -n 's/.*"name":"\([^"]*\)".*/\1/p'
}

_monkeyctl() {
    local current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD - 1]}
    local subcommands="start stop set clear delete status log tail events wait coverage corpora top ping hello version metrics odds replay help"
    local common="--socket -H --host --json --help"
    local subcommand="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --socket | -H | --host) ((i++)) ;;
        -*) ;;
        *) subcommand=${COMP_WORDS[i]}; break ;;
        esac
    done

    case $previous in
    --socket) COMPREPLY=($(compgen -f -- "$current")); return ;;
    -H | --host) COMPREPLY=($(compgen -A hostname -- "$current")); return ;;
    --target | --monkeys | --interval | --alphabet | -n | --seed | --id | -d | --delay | --after | --best | --timeout | --corpus | --chunk | --work | --coverage) COMPREPLY=(); return ;;
    --session) COMPREPLY=($(compgen -W "$(_monkeyctl_sessions)" -- "$current")); return ;;
    esac

    if [[ -z $subcommand ]]; then
        if [[ $current == -* ]]; then
            COMPREPLY=($(compgen -W "$common --version" -- "$current"))
        else
            COMPREPLY=($(compgen -W "$subcommands" -- "$current"))
        fi
        return
    fi

    local options=$common
    case $subcommand in
    start | set) options+=" --target --corpus --chunk --monkeys --interval --alphabet --seed" ;;
    coverage) options+=" --work" ;;
    corpora) options+=" --alphabet" ;;
    log) options+=" -n --all" ;;
    tail) options+=" -n -f --follow --all" ;;
    events) options+=" -f --follow --after --session" ;;
    wait) options+=" --hit --stopped --best --coverage --timeout" ;;
    # Not --json: top is for people.
    top) options="--socket -H --host --help --once -d --delay" ;;
    odds) options+=" --target --monkeys --interval --alphabet --corpus --chunk --coverage" ;;
    replay) options+=" --seed --id --monkeys --alphabet" ;;
    help) COMPREPLY=($(compgen -W "$subcommands" -- "$current")); return ;;
    esac
    case $subcommand in
    # No session: only options.
    ping | hello | version | metrics | odds | replay | events | top | corpora) COMPREPLY=($(compgen -W "$options" -- "$current")); return ;;
    esac
    if [[ $current == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$current"))
    else
        COMPREPLY=($(compgen -W "$(_monkeyctl_sessions)" -- "$current"))
    fi
}

complete -F _monkeyctl monkeyctl
