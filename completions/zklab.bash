# SPDX-License-Identifier: Apache-2.0
# bash completion for zklab(1): its subcommands and their options, the global
# options (--dir, --zkd, --timeout) anywhere, directory and file names where
# they take one, and NODE as leader, follower, random or the id of a node of
# the lab (the n<id> folders of --dir, default .lab/zklab).
_zklab_node_ids() {
    local dir=$1 node
    for node in "$dir"/n[0-9]*; do
        [[ -d $node ]] && printf '%s\n' "${node##*/n}"
    done
}

_zklab() {
    local cur prev words cword split
    _init_completion -s || return

    local i sub= dir=.lab/zklab
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --dir)
                ((i++))
                dir=${words[i]-}
                ;;
            --dir=*) dir=${words[i]#--dir=} ;;
            --zkd | --timeout) ((i++)) ;;
            -*) ;;
            *) [[ -z $sub ]] && sub=${words[i]} ;;
        esac
    done
    __expand_tilde_by_ref dir

    case $prev in
        --node)
            # backup's NODE; add's --node takes the id of a removed node.
            [[ $sub == backup ]] &&
                COMPREPLY=($(compgen -W "leader follower random $(_zklab_node_ids "$dir")" -- "$cur"))
            return
            ;;
        --dir)
            _filedir -d
            return
            ;;
        --zkd | --csv | --svg | --history)
            _filedir
            return
            ;;
        --timeout | -n | --nodes | --observers | --base-port | --tick-ms | --lines | \
            --clients | --reads | --in-flight | --value-bytes | --duration | --kill-at | \
            --restart-at | --settle | --seed | --registers | --set | --add | --remove | \
            --members | --from | --jute-maxbuffer | --auth)
            return
            ;;
        --fault)
            COMPREPLY=($(compgen -W 'kill pause isolate' -- "$cur"))
            return
            ;;
        --to)
            COMPREPLY=($(compgen -W 'zkd apache' -- "$cur"))
            return
            ;;
        --kinds)
            local kinds=${cur%,*}
            [[ $kinds == "$cur" ]] && kinds= || kinds+=,
            COMPREPLY=($(compgen -P "$kinds" -W 'zkd apache' -- "${cur##*,}"))
            compopt -o nospace
            return
            ;;
        --nemesis)
            local faults=${cur%,*}
            [[ $faults == "$cur" ]] && faults= || faults+=,
            COMPREPLY=($(compgen -P "$faults" -W 'kill pause partition bridge corrupt wipe crashpoint skew reconfig' -- "${cur##*,}"))
            compopt -o nospace
            return
            ;;
    esac
    $split && return

    local global='--dir --zkd --timeout --version --help'
    local options=
    case $sub in
        up) options='-n --nodes --observers --base-port --tick-ms --direct --tls --sasl --set --kinds' ;;
        status) options='--json --watch' ;;
        down) options='--wipe' ;;
        start | restart) options='--no-wait' ;;
        logs) options='-n --lines -f --follow' ;;
        failover)
            options='--fault --clients --reads --in-flight --value-bytes --duration --kill-at
                --restart-at --csv --svg'
            ;;
        roll) options='--kill --no-transfer --settle --clients --reads --in-flight --value-bytes --csv --svg' ;;
        transfer) options='--to --settle --clients --reads --in-flight --value-bytes --csv --svg' ;;
        migrate)
            options='--to --kill-leader-between --settle --clients --reads --in-flight --value-bytes
                --csv --svg'
            ;;
        check) options='--nemesis --duration --seed --clients --registers --history --jute-maxbuffer' ;;
        add) options='--observer --node' ;;
        reconfig) options='--add --remove --members --from' ;;
        backup) options='--node --auth --json' ;;
        restore) options='--json' ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options $global" -- "$cur"))
        return
    fi

    case $sub in
        '')
            COMPREPLY=($(compgen -W 'up status down start stop restart kill pause resume logs
                partition isolate slow heal failover roll transfer migrate check add remove reconfig
                backup restore' -- "$cur"))
            ;;
        backup | restore) _filedir ;;
        start | stop | restart | kill | pause | resume | logs | isolate | slow | remove)
            # NODE is the first positional; slow's DELAY comes after it.
            local positionals=0
            for ((i = 1; i < cword; i++)); do
                case ${words[i]} in
                    --dir | --zkd | --timeout | -n | --lines) ((i++)) ;;
                    -*) ;;
                    *) ((positionals++)) ;;
                esac
            done
            ((positionals == 1)) &&
                COMPREPLY=($(compgen -W "leader follower random $(_zklab_node_ids "$dir")" -- "$cur"))
            ;;
        partition)
            local ids=${cur%,*}
            [[ $ids == "$cur" ]] && ids= || ids+=,
            COMPREPLY=($(compgen -P "$ids" -W "$(_zklab_node_ids "$dir")" -- "${cur##*,}"))
            compopt -o nospace
            ;;
    esac
} && complete -F _zklab zklab
