# The sender's way into the receivers' network namespaces: the link-* subcommands of
# scripts/services.sh, which sources this file (it uses that script's say and die). Not meant to
# be run on its own.
#
# Kodi's and UxPlay's namespaces (kodi-start, uxplay-start) have no way out and no way in: a
# `lab run` inside one reaches only that receiver. link-start makes a third namespace, the
# sender's, with a veth pair into each running receiver namespace, so that one `lab run` run in it
# (`ip netns exec $SEAMCHECK_LINK_NETNS seamcheck lab run ...`) plays to both (Kodi and UxPlay side
# by side, docs/lab-run.md): in the receiver's namespace 10.N.1.1, in the sender's 10.N.1.2 (a /30:
# N is 77 for Kodi and 78 for UxPlay). Both receivers bind every address, so they answer there too.
# Both ends of every pair stay inside namespaces: the host gains no interface or route, and no
# namespace has a default route (each reaches the other end of its own links and nothing beyond).
# link-stop deletes the sender's namespace, and with it the links.
#
# Run it in the same mount namespace as kodi-start / uxplay-start (a bare `ip netns` sees the
# namespaces those made only there).

link_tag="$(printf '%s' "$root_dir" | sha1sum | cut -c1-8)"

# name, netns-variable, subnet prefix, env file
link_targets=("kodi ${SEAMCHECK_KODI_NETNS:-seamcheck-kodi-$link_tag} 10.77.1 $state_dir/kodi.env"
              "uxplay ${SEAMCHECK_UXPLAY_NETNS:-seamcheck-uxplay-$link_tag} 10.78.1 $state_dir/uxplay.env")

link_netns="${SEAMCHECK_LINK_NETNS:-seamcheck-link-$link_tag}"
link_env_file() { echo "$state_dir/link.env"; }

link_start() {
  local entry name netns prefix sender_if written=0
  : >"$(link_env_file)"
  if [ ! -e "/run/netns/$link_netns" ]; then
    ip netns add "$link_netns" || die "cannot make the sender's network namespace $link_netns"
    ip -n "$link_netns" link set lo up
  fi
  for entry in "${link_targets[@]}"; do
    read -r name netns prefix _ <<<"$entry"
    [ -e "/run/netns/$netns" ] || { say "$name: no network namespace $netns (scripts/services.sh $name-start first): not linked"; continue; }
    sender_if="to-$name"
    if ! ip -n "$link_netns" link show "$sender_if" >/dev/null 2>&1; then
      ip -n "$netns" link del scl1 2>/dev/null || true   # the receiver's end of an earlier link
      ip link add "$sender_if" netns "$link_netns" type veth peer name scl1 netns "$netns" \
        && ip -n "$link_netns" addr add "$prefix.2/30" dev "$sender_if" \
        && ip -n "$link_netns" link set "$sender_if" up \
        && ip -n "$netns" addr add "$prefix.1/30" dev scl1 \
        && ip -n "$netns" link set scl1 up \
        || { ip -n "$link_netns" link del "$sender_if" 2>/dev/null; die "$name: cannot link network namespace $netns to $link_netns"; }
    fi
    printf 'export SEAMCHECK_LINK_%s=%q\n' "$(echo "$name" | tr '[:lower:]' '[:upper:]')" "$prefix.1" >>"$(link_env_file)"
    say "$name: $netns reachable from $link_netns at $prefix.1 (the sender's end $prefix.2)"
    written=1
  done
  [ "$written" = 1 ] || { ip netns del "$link_netns" 2>/dev/null; die "nothing to link: start Kodi or UxPlay first"; }
  printf 'export SEAMCHECK_LINK_NETNS=%q\n' "$link_netns" >>"$(link_env_file)"
  say "addresses: source $(link_env_file); run the sender with: ip netns exec $link_netns seamcheck ..."
}

link_stop() {
  if [ -e "/run/netns/$link_netns" ]; then
    ip netns del "$link_netns" && say "sender's namespace $link_netns and its links removed"
  fi
  rm -f "$(link_env_file)"
}

link_status() {
  local entry name
  if [ ! -e "/run/netns/$link_netns" ]; then echo "link:   not started"; return 0; fi
  for entry in "${link_targets[@]}"; do
    read -r name _ <<<"$entry"
    printf '%-7s %s\n' "$name:" "$(ip -n "$link_netns" link show "to-$name" >/dev/null 2>&1 && echo "linked ($link_netns, to-$name)" || echo "not linked")"
  done
}
