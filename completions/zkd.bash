# SPDX-License-Identifier: Apache-2.0
# bash completion for zkd(8): its options, the subcommands dump-log,
# dump-snapshot, failpoints, import, export and restore, and file names where
# a file is expected (--config FILE, --jaas FILE, the zoo.cfg positional,
# dump-log FILE, dump-snapshot FILE, restore's SNAPSHOT_FILE) or directories
# (import's and export's). restore's --zxid takes a hex number: nothing is
# offered.
_zkd() {
    local cur prev words cword split
    _init_completion -s || return

    local i sub=
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -c | --config | --jaas) ((i++)) ;;
            dump-log | dump-snapshot | failpoints | import | export | restore)
                sub=${words[i]}
                break
                ;;
        esac
    done

    case $prev in
        -c | --config | --jaas)
            _filedir
            return
            ;;
    esac
    $split && return

    if [[ $sub == import || $sub == export ]]; then
        case $prev in
            --log-dir)
                _filedir -d
                return
                ;;
        esac
        if [[ $cur == -* ]]; then
            local options='-c --config --help'
            [[ $sub == import ]] && options+=' --log-dir'
            COMPREPLY=($(compgen -W "$options" -- "$cur"))
        else
            _filedir -d
        fi
        return
    fi
    if [[ $sub == restore ]]; then
        [[ $prev == --zxid ]] && return
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '-c --config --zxid --help' -- "$cur"))
        else
            _filedir
        fi
        return
    fi
    if [[ $sub == failpoints ]]; then
        COMPREPLY=($(compgen -W '--help' -- "$cur"))
        return
    fi
    if [[ -n $sub ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--json --help' -- "$cur"))
        else
            _filedir
        fi
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W '-c --config --jaas --version --help' -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -W 'dump-log dump-snapshot export failpoints import restore' -- "$cur"))
    _filedir # zkd zoo.cfg, as zkServer.sh passes it
} && complete -F _zkd zkd
