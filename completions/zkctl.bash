# SPDX-License-Identifier: Apache-2.0
# bash completion for zkctl(1): the global options (before the command), the
# commands and recipe verbs, each one's options and actions, file names for
# -f/--file, `settings apply PATH FILE` and `reconfig -file`, and a command line after the `--`
# of `lock` and `elect`. Znode paths are not completed here (that needs a
# server); zkctl's interactive shell completes them.
_zkctl() {
    local cur prev words cword split
    _init_completion -s || return

    # The command is the first word that is not a global option or its value.
    local i verb= at=0
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -s | --server | -server | --timeout | -timeout | --connect-timeout | -f | --file | \
                --tls-ca | --tls-cert | --tls-key | --sasl-user | --sasl-password-file | \
                --sasl-mech | --jaas) ((i++)) ;;
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
            -s | --server | -server | --timeout | -timeout | --connect-timeout | --sasl-user) return ;;
        esac
        $split && return
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '-s --server -server --timeout --connect-timeout --json -f --file
                -k --keep-going --tls --tls-ca --tls-cert --tls-key --tls-no-verify-host
                --sasl-user --sasl-password-file --sasl-mech --jaas
                --version -h --help' -- "$cur"))
        else
            COMPREPLY=($(compgen -W 'create get set ls stat exists delete deleteall watch
                addWatch removewatches sync addauth getAcl setAcl whoami getEphemerals
                getAllChildrenNumber setquota listquota delquota config reconfig version help
                lock elect barrier counter members queue settings' -- "$cur"))
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
        settings) actions='apply wait' ;;
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
        create)
            options='-e --ephemeral -s --sequential -c --container -t --ttl --base64 --hex'
            valued='-t --ttl'
            ;;
        get) options='-s -S --stat -w --watch --base64 --hex' ;;
        ls) options='-s -S --stat -w --watch -R --recursive' ;;
        stat) options='-w --watch' ;;
        getAcl) options='-s -S --stat' ;;
        set) options='-v --version -s -S --stat --base64 --hex' valued='-v --version' ;;
        setAcl) options='-v --version -s -S --stat -R --recursive' valued='-v --version' ;;
        deleteall) options='-b --batch' valued=$options ;;
        addWatch) options='-m --mode' valued=$options ;;
        setquota) options='-n -b -N -B' valued=$options ;;
        delquota) options='-n -b -N -B' ;;
        config) options='-c --client -w --watch -s -S --stat' ;;
        reconfig)
            options='-s -S --stat -v --version -file --file -members --members -add --add
                -remove --remove'
            valued='-v --version -file --file -members --members -add --add -remove --remove'
            ;;
        delete) options='-v --version' valued=$options ;;
        watch)
            options='--data --children --exists --persistent --recursive --count --timeout-watch'
            valued='--count --timeout-watch'
            ;;
        removewatches) options='-c --children -d --data -a --any -l --local' ;;
        lock | 'queue take' | 'settings wait') options='--timeout' valued=$options ;;
        elect) options='--id' valued=$options ;;
        'barrier enter' | 'barrier leave') options='-n --id --timeout' valued=$options ;;
        'counter incr') options='--by' valued=$options ;;
        members) options='--join --data --watch' valued='--join --data' ;;
    esac
    case $verb:$prev in
        addWatch:-m | addWatch:--mode)
            COMPREPLY=($(compgen -W 'PERSISTENT PERSISTENT_RECURSIVE' -- "$cur"))
            return
            ;;
        reconfig:-file | reconfig:--file)
            _filedir
            return
            ;;
    esac
    [[ " $valued " == *" $prev "* ]] && return
    $split && return
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi

    case $verb${action:+ $action} in
        addauth) ((cword == at + 1)) && COMPREPLY=($(compgen -W 'digest ip' -- "$cur")) ;;
        'settings apply')
            # settings apply PATH FILE: the file is the second positional.
            local positionals=0
            for ((i = at + 2; i < cword; i++)); do
                [[ ${words[i]} != -* ]] && ((positionals++))
            done
            ((positionals == 1)) && _filedir
            ;;
    esac
} && complete -F _zkctl zkctl
