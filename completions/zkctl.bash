# SPDX-License-Identifier: Apache-2.0
# bash completion for zkctl(1): the global options (before the command), the
# commands and recipe verbs, each one's options and actions, file names for
# -f/--file and `config apply PATH FILE`, and a command line after the `--`
# of `lock` and `elect`. Znode paths are not completed here (that needs a
# server); zkctl's interactive shell completes them.
_zkctl() {
    local cur prev words cword split
    _init_completion -s || return

    # The command is the first word that is not a global option or its value.
    local i verb= at=0
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -s | --server | --timeout | --connect-timeout | -f | --file | --tls-ca | --tls-cert | \
                --tls-key | --sasl-user | --sasl-password-file | --sasl-mech | --jaas) ((i++)) ;;
            -*) ;;
            *)
                verb=${words[i]}
                at=$i
                break
                ;;
        esac
    done

    if [[ -z $verb ]]; then
        case $prev in
            -f | --file | --tls-ca | --tls-cert | --tls-key | --sasl-password-file | --jaas)
                _filedir
                return
                ;;
            --sasl-mech)
                COMPREPLY=($(compgen -W 'DIGEST-MD5 GSSAPI' -- "$cur"))
                return
                ;;
            -s | --server | --timeout | --connect-timeout | --sasl-user) return ;;
        esac
        $split && return
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '-s --server --timeout --connect-timeout --json -f --file
                -k --keep-going --tls --tls-ca --tls-cert --tls-key --tls-no-verify-host
                --sasl-user --sasl-password-file --sasl-mech --jaas
                --version -h --help' -- "$cur"))
        else
            COMPREPLY=($(compgen -W 'create get set ls stat exists delete deleteall watch
                removewatches sync addauth getacl setacl help lock elect barrier counter
                members queue config' -- "$cur"))
        fi
        return
    fi

    # lock and elect run a command after "--".
    if [[ $verb == lock || $verb == elect ]]; then
        for ((i = at + 1; i < cword; i++)); do
            if [[ ${words[i]} == -- ]]; then
                _command_offset $((i + 1))
                return
            fi
        done
    fi

    # The recipe verbs with an action: barrier enter, counter incr, ...
    local action= actions=
    case $verb in
        barrier) actions='enter leave' ;;
        counter) actions='incr get' ;;
        queue) actions='put take' ;;
        config) actions='apply wait' ;;
    esac
    if [[ -n $actions ]]; then
        if ((cword == at + 1)); then
            COMPREPLY=($(compgen -W "$actions" -- "$cur"))
            return
        fi
        action=${words[at + 1]}
    fi

    # options: every option of the command; valued: those that take a value.
    local options= valued=
    case $verb${action:+ $action} in
        create) options='-e --ephemeral -s --sequential' ;;
        get | ls | getacl) options='-S --stat' ;;
        set | setacl) options='-v --version -S --stat' valued='-v --version' ;;
        delete) options='-v --version' valued=$options ;;
        watch)
            options='--data --children --exists --persistent --recursive --count --timeout-watch'
            valued='--count --timeout-watch'
            ;;
        removewatches) options='-c --children -d --data -a --any -l --local' ;;
        lock | 'queue take' | 'config wait') options='--timeout' valued=$options ;;
        elect) options='--id' valued=$options ;;
        'barrier enter' | 'barrier leave') options='-n --id --timeout' valued=$options ;;
        'counter incr') options='--by' valued=$options ;;
        members) options='--join --data --watch' valued='--join --data' ;;
    esac
    [[ " $valued " == *" $prev "* ]] && return
    $split && return
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi

    case $verb${action:+ $action} in
        addauth) ((cword == at + 1)) && COMPREPLY=($(compgen -W 'digest ip' -- "$cur")) ;;
        'config apply')
            # config apply PATH FILE: the file is the second positional.
            local positionals=0
            for ((i = at + 2; i < cword; i++)); do
                [[ ${words[i]} != -* ]] && ((positionals++))
            done
            ((positionals == 1)) && _filedir
            ;;
    esac
} && complete -F _zkctl zkctl
