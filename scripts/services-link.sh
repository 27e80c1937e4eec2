# The host's way into the receivers' network namespaces: the link-* subcommands of
# scripts/services.sh, which sources this file (it uses that script's say and die). Not meant to
# be run on its own.
#
# Kodi's and UxPlay's namespaces (kodi-start, uxplay-start) have no way out and no way in: a
# `lab run` inside one reaches only that receiver. link-start gives each running one a second
# veth pair with one end on the host, so that one `lab run` on the host plays to both (Kodi and
# UxPlay side by side, docs/lab-run.md): inside the namespace 10.N.1.1, on the host 10.N.1.2
# (a /30: N is 77 for Kodi and 78 for UxPlay). Both receivers bind every address, so they answer
# there too. Nothing else changes: the namespaces still have no default route (they reach the
# host's end of their own link and nothing beyond), their first veth pair and addresses are as
# before, and link-stop (or deleting the namespace) removes the links. The host ends are named
# from this checkout (scl + 8 hex of its path + k|u), so two checkouts never share one; the
# subnets are fixed, so link-start refuses when another checkout's link holds them.
#
# Run it in the same mount namespace as kodi-start / uxplay-start (a bare `ip netns` sees the
# namespaces those made only there).

link_tag="$(printf '%s' "$root_dir" | sha1sum | cut -c1-8)"

# name, netns-variable, subnet prefix, env file
link_targets=("kodi ${SEAMCHECK_KODI_NETNS:-seamcheck-kodi-$link_tag} 10.77.1 $state_dir/kodi.env"
              "uxplay ${SEAMCHECK_UXPLAY_NETNS:-seamcheck-uxplay-$link_tag} 10.78.1 $state_dir/uxplay.env")

link_host_if() { echo "scl$link_tag${1:0:1}"; }
link_env_file() { echo "$state_dir/link.env"; }

link_start() {
  local entry name netns prefix env host_if written=0
  : >"$(link_env_file)"
  for entry in "${link_targets[@]}"; do
    read -r name netns prefix _ <<<"$entry"
    [ -e "/run/netns/$netns" ] || { say "$name: no network namespace $netns (scripts/services.sh $name-start first): not linked"; continue; }
    host_if="$(link_host_if "$name")"
    if ! ip link show "$host_if" >/dev/null 2>&1; then
      if ip -o addr show | grep -q " $prefix\.2/30 "; then
        die "$name: $prefix.2/30 is already on another interface of this host (another checkout's link?): its link-stop first"
      fi
      ip link add "$host_if" type veth peer name scl1 netns "$netns" \
        && ip addr add "$prefix.2/30" dev "$host_if" \
        && ip link set "$host_if" up \
        && ip -n "$netns" addr add "$prefix.1/30" dev scl1 \
        && ip -n "$netns" link set scl1 up \
        || { ip link del "$host_if" 2>/dev/null; die "$name: cannot link network namespace $netns to the host"; }
    fi
    printf 'export SEAMCHECK_LINK_%s=%q\n' "$(echo "$name" | tr '[:lower:]' '[:upper:]')" "$prefix.1" >>"$(link_env_file)"
    say "$name: $netns reachable from the host at $prefix.1 (host end $host_if, $prefix.2)"
    written=1
  done
  [ "$written" = 1 ] || die "nothing to link: start Kodi or UxPlay first"
  say "addresses: source $(link_env_file)"
}

link_stop() {
  local entry name host_if
  for entry in "${link_targets[@]}"; do
    read -r name _ <<<"$entry"
    host_if="$(link_host_if "$name")"
    if ip link show "$host_if" >/dev/null 2>&1; then
      ip link del "$host_if" && say "$name: link $host_if removed"
    fi
  done
  rm -f "$(link_env_file)"
}

link_status() {
  local entry name host_if
  for entry in "${link_targets[@]}"; do
    read -r name _ <<<"$entry"
    host_if="$(link_host_if "$name")"
    printf '%-7s %s\n' "$name:" "$(ip link show "$host_if" >/dev/null 2>&1 && echo "linked ($host_if)" || echo "not linked")"
  done
}
