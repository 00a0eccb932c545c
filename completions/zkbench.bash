# SPDX-License-Identifier: Apache-2.0
# bash completion for zkbench(1): its subcommands and each one's options,
# the values of --keys and --kinds, SVG file names for --plot, YAML files for
# --config, file names for flood's --json FILE, paper's figures, flavours and
# --out directory.
_zkbench() {
    local cur prev words cword split
    _init_completion -s || return

    local i sub=
    for ((i = 1; i < cword; i++)); do
        if [[ ${words[i]} != -* ]]; then
            sub=${words[i]}
            break
        fi
    done

    case $prev in
        --tls-ca | --tls-cert | --tls-key | --sasl-password-file | --jaas)
            _filedir
            return
            ;;
        --sasl-mech)
            COMPREPLY=($(compgen -W 'DIGEST-MD5 GSSAPI' -- "$cur"))
            return
            ;;
        --plot)
            _filedir svg
            return
            ;;
        --config)
            _filedir '@(yaml|yml)'
            return
            ;;
        --keys)
            COMPREPLY=($(compgen -W 'uniform zipf' -- "$cur"))
            return
            ;;
        --json)
            if [[ $sub == flood ]]; then
                _filedir
                return
            fi
            ;;
        --kinds)
            COMPREPLY=($(compgen -W 'pipeline storm large' -- "$cur"))
            return
            ;;
        --flavours)
            COMPREPLY=($(compgen -W 'zkd,apache apache,zkd zkd apache' -- "$cur"))
            return
            ;;
        --out)
            _filedir -d
            return
            ;;
        --zkd)
            _filedir
            return
            ;;
        paper)
            if [[ $sub == paper && $cur != -* ]]; then
                COMPREPLY=($(compgen -W 'fig5 fig6 fig7 table2 table3 fig8 all' -- "$cur"))
                return
            fi
            ;;
    esac
    $split && return

    if [[ -z $sub ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--version --help' -- "$cur"))
        else
            COMPREPLY=($(compgen -W 'run sweep compare populate lock barrier creates keeper-bench flood paper' \
                -- "$cur"))
        fi
        return
    fi

    # Options that take a value: nothing to offer for it but the above.
    if [[ $prev == -s || ($prev == --* && $prev != --json && $prev != --csv &&
        $prev != --sequential && $prev != --keep && $prev != --help && $prev != --tls &&
        $prev != --tls-no-verify-host && $prev != --keep-setup &&
        $prev != --continue-on-errors && $prev != --quick && $prev != --markdown) ]]; then
        return
    fi

    local workload='--sessions --in-flight --threads --multi-ops --value-bytes --znodes
        --keys --zipf-s --seed --duration --ops --warmup --rate --root
        --session-timeout-ms --connect-timeout --tls --tls-ca --tls-cert --tls-key
        --tls-no-verify-host --sasl-user --sasl-password-file --sasl-mech --jaas'
    local connection='-s --servers --threads --session-timeout-ms --connect-timeout --json'
    local options=
    case $sub in
        run)
            options="-s --servers $workload --reads --mix --json --csv --plot --server-pids"
            ;;
        sweep) options="-s --servers --steps $workload --json --csv --plot --server-pids" ;;
        compare)
            options="--a --b --a-name --b-name --rounds $workload --reads --mix --json --plot
                --a-pids --b-pids"
            ;;
        populate) options="$connection --znodes --value-bytes --root --sessions --window" ;;
        lock) options="$connection --clients --holds --path --hold-us" ;;
        barrier) options="$connection --clients --rounds --path" ;;
        creates)
            options="$connection --workers --creates --window --value-bytes --sequential --root
                --keep"
            ;;
        keeper-bench)
            options="--config -s --servers --json --seed --keep-setup --threads --concurrency
                --iterations --time-limit --report-delay --continue-on-errors --tls --tls-ca
                --tls-cert --tls-key --tls-no-verify-host --sasl-user --sasl-password-file
                --sasl-mech --jaas"
            ;;
        flood)
            options="-s --servers --capacity --factor --kinds --measure-rate --phase-seconds
                --flood-source --flood-nice --large-bytes --root --json --session-timeout-ms
                --connect-timeout"
            ;;
        paper)
            options="--flavours --zkd --quick --out --markdown --keep --tick-ms --apache-heap
                --ensemble-warmup --sizes --steps --duration --warmup --sessions --in-flight
                --txns --runs --workers --creates --size --clients --barriers --period --bucket-ms --reads"
            ;;
    esac
    [[ $cur == -* ]] && COMPREPLY=($(compgen -W "$options --help" -- "$cur"))
} && complete -F _zkbench zkbench
