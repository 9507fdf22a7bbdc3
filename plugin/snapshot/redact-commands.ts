import { commandOption, passwordValue, QUOTED_OR_BARE } from "./redact-context.ts";
import { type Rule, rule } from "./redact-engine.ts";
import { looksSecret } from "./redact-names.ts";

/**
 * Passwords on the command lines of tools whose manuals give them a password argument of their own
 * (`ldapsearch -w`, `smbclient -U user%password`, `sqlplus user/password@db`, `7z -pPASSWORD`,
 * `htpasswd -b file user password`, `net user name password`, `keytool -storepass`), and passwords
 * piped into a command that reads them from its standard input (`echo … | sudo -S`, `… | docker login
 * --password-stdin`, `… | chpasswd`). Each is a `commandOption` rule (redact-context.ts): the command,
 * then every password option in the rest of its command line.
 */

/** The value after `user%` or `user,` or `user/`: bare, it stops where the tool's syntax goes on. */
const after = (separator: string, stop: string) =>
  String.raw`${separator}(?!\[REDACTED:)(?:(?<q>["'])(?<secret>[^"'\s]{1,256})\k<q>|(?<secret2>[^\s"'\`;|&<>()${stop}]{1,256}))`;

/**
 * A positional argument (`htpasswd -b file user PASSWORD`) or a literal is a password only when it looks like
 * one (6+ characters mixing two of lower case, upper case and digits, not words and numbers: `eu-west-1`):
 * a word there is as likely a name or the next command of a pasted log.
 */
const positional = (value: string) => passwordValue(value, 3) && looksSecret(value, "weak", 6);

/** An argument of a command line: quoted, or up to the next white space. */
const ARGUMENT = String.raw`(?:"[^"\n]*"|'[^'\n]*'|[^\s"']+)`;

export const COMMAND_RULES: readonly Rule[] = [
  // OpenLDAP's clients: `-w passwd` binds with it; ldappasswd also takes the old (`-a`) and new (`-s`) one.
  commandOption(
    "ldap(?:search|add|modify|delete|modrdn|compare|whoami|passwd|exop|url)",
    String.raw`[ \t]-[was][ \t]*${QUOTED_OR_BARE}`,
    { triggers: ["ldap"], reach: 2 },
  ),
  // Samba: `-U user%password`, `--user=user%password`, quoted whole or not.
  commandOption(
    "(?:smbclient|rpcclient|smbcacls|smbget|smbmap|smbtree|net[ \\t]+(?:ads|rpc))",
    String.raw`[ \t](?:-U[ \t]*|--user[= ])["']?[^\s%"']+${after("%", "")}`,
    { triggers: ["smb", "rpcclient", "net"], reach: 2 },
  ),
  // RDP clients: `rdesktop -p password`, `xfreerdp /p:password`.
  commandOption("rdesktop", String.raw`[ \t]-p[ \t]+${QUOTED_OR_BARE}`, { triggers: ["rdesktop"], reach: 2 }),
  commandOption("(?:[xw]l?freerdp3?|sdl-freerdp)", String.raw`[ \t][/+-]p(?:assword)?:${QUOTED_OR_BARE}`, {
    triggers: ["freerdp"],
    reach: 2,
  }),
  // `ssh-keygen -N new_passphrase -P old_passphrase` (an empty `-N ''` is no passphrase).
  commandOption("ssh-keygen", String.raw`[ \t]-[NP][ \t]*${QUOTED_OR_BARE}`, {
    triggers: ["ssh-keygen"],
    reach: 2,
  }),
  // Archivers: `7z a -pSECRET`, `rar a -pSECRET` (attached); `zip -P secret`, `unzip -P secret`.
  commandOption("(?:7z[ar]?|7zz|rar|unrar)", String.raw`[ \t]-p${QUOTED_OR_BARE}`, {
    triggers: ["7z", "rar"],
    reach: 2,
  }),
  commandOption("(?:zip|unzip|zipcloak|funzip)", String.raw`[ \t]-P[ \t]+${QUOTED_OR_BARE}`, {
    triggers: ["zip"],
    reach: 2,
  }),
  // SQL Server and IPMI and MQTT clients: `-P password`; PuTTY's: `-pw password`.
  commandOption(
    "(?:sqlcmd|bcp|osql|isql|ipmitool|mosquitto_(?:pub|sub|rr))",
    String.raw`[ \t]-P[ \t]+${QUOTED_OR_BARE}`,
    {
      // `qlcmd`, not `sqlcmd`: the trigger scan compares every literal that starts with the three characters
      // at hand, and `sql` is in every `mysql` of a text dense with them.
      triggers: ["qlcmd", "bcp", "osql", "isql", "ipmitool", "mosquitto_"],
      reach: 2,
    },
  ),
  commandOption("(?:plink|pscp|psftp|putty)", String.raw`[ \t]-pw[ \t]+${QUOTED_OR_BARE}`, {
    triggers: ["plink", "pscp", "psftp", "putty"],
    reach: 2,
  }),
  // MongoDB shells and PsExec: `-u user -p password`; `openssl enc -k password`.
  commandOption(
    "(?:mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport|psexec|paexec)",
    String.raw`[ \t]-p[ \t]+${QUOTED_OR_BARE}`,
    {
      triggers: ["mongo", "psexec", "paexec"],
      reach: 2,
    },
  ),
  commandOption("openssl", String.raw`[ \t]-k[ \t]+${QUOTED_OR_BARE}`, { triggers: ["openssl"], reach: 2 }),
  // Java key stores: `keytool -storepass secret -keypass secret`, `jarsigner -storepass secret`.
  commandOption(
    "(?:keytool|jarsigner)",
    String.raw`[ \t]-(?:src|dest)?(?:storepass|keypass|new)[ \t]+${QUOTED_OR_BARE}`,
    { triggers: ["keytool", "jarsigner"], reach: 2 },
  ),
  // Oracle: `sqlplus user/password@db` (`sqlplus / as sysdba` names no one).
  commandOption(
    "(?:sqlplus|rman|expdp|impdp|sqlldr)",
    String.raw`[ \t](?:-[A-Za-z]+[ \t]+)*(?:userid=)?[A-Za-z0-9_$#.]+${after("/", "@/")}`,
    { triggers: ["qlplus", "rman", "expdp", "impdp", "qlldr"], reach: 2 },
  ),
  // HTTPie and xh: `http -a user:password …`, `--auth user:password` (`--auth=…` is a flag's value already).
  commandOption("(?:https?|xhs?)", String.raw`[ \t](?:-a|--auth)[ \t]+[^\s:"']+${after(":", "")}`, {
    triggers: ["-a", "--auth"],
    reach: 2,
  }),
  // `lftp -u user,password host`.
  commandOption("lftp", String.raw`[ \t]-u[ \t]+[^\s,"']+${after(",", ",")}`, {
    triggers: ["lftp"],
    reach: 2,
  }),
  // `htpasswd -b file user password`, `htpasswd -nb user password`: the last argument.
  commandOption(
    "htpasswd",
    String.raw`[ \t]-(?=[A-Za-z]*b)(?:(?=[A-Za-z]*n)[A-Za-z]+(?:[ \t]+${ARGUMENT}){1}|(?![A-Za-z]*n)[A-Za-z]+(?:[ \t]+${ARGUMENT}){2})[ \t]+${QUOTED_OR_BARE}`,
    { triggers: ["htpasswd"], reach: 2, judge: positional },
  ),
  // Windows: `net user name password /add`, `cmdkey /add:host /user:name /pass:password`.
  commandOption("net[ \\t]+user", String.raw`^[ \t]+${ARGUMENT}[ \t]+(?!/)${QUOTED_OR_BARE}`, {
    triggers: ["net"],
    reach: 1,
    judge: positional,
  }),
  commandOption("cmdkey", String.raw`[ \t]/pass:${QUOTED_OR_BARE}`, { triggers: ["cmdkey"], reach: 1 }),
  // `rabbitmqctl add_user name password`, `rabbitmqctl change_password name password`.
  commandOption(
    "rabbitmqctl",
    String.raw`[ \t](?:add_user|change_password)[ \t]+${ARGUMENT}[ \t]+${QUOTED_OR_BARE}`,
    { triggers: ["rabbitmqctl"], reach: 2, judge: positional },
  ),
  // `wpa_passphrase ssid passphrase`; `nmcli dev wifi connect ssid password secret`, `wifi-sec.psk secret`.
  commandOption("wpa_passphrase", String.raw`^[ \t]+${ARGUMENT}[ \t]+${QUOTED_OR_BARE}`, {
    triggers: ["wpa_passphrase"],
    reach: 1,
    judge: positional,
  }),
  commandOption(
    "nmcli",
    String.raw`[ \t](?:password|(?:wifi-sec|802-11-wireless-security)\.psk)[ \t]+${QUOTED_OR_BARE}`,
    { triggers: ["nmcli"], reach: 2, judge: positional },
  ),
  // `kubectl create secret generic name --from-literal=key=value`: a literal of a secret that looks like one.
  commandOption(
    "kubectl[ \\t]+create[ \\t]+secret",
    String.raw`[ \t]--from-literal[= ](?:["']?)[^=\s"']+=${QUOTED_OR_BARE}`,
    { triggers: ["kubectl"], reach: 2, judge: positional },
  ),
  // macOS keychain: `security add-generic-password -a me -s svc -w secret`.
  commandOption(
    "security[ \\t]+add-(?:generic|internet)-password",
    String.raw`[ \t]-w[ \t]+${QUOTED_OR_BARE}`,
    {
      triggers: ["security"],
      reach: 1,
    },
  ),
  // `aws configure set aws_secret_access_key secret`.
  commandOption(
    "aws[ \\t]+configure[ \\t]+set",
    String.raw`[ \t](?:[\w.-]+\.)?(?:aws_secret_access_key|aws_session_token)[ \t]+${QUOTED_OR_BARE}`,
    { triggers: ["aws"], reach: 1 },
  ),
  // A password piped into a command that reads it: `echo 'secret' | sudo -S …`, `printf '%s' secret |
  // docker login -u me --password-stdin`, `echo 'user:secret' | sudo chpasswd` (the part after the colon).
  rule(
    "cli-flag",
    String.raw`\b(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+)?(?:(?<fmt>["']%s(?:\\n)?["'])[ \t]+)?(?!\[REDACTED:)(?:(?<q>["'])(?<quoted>[^"'\n]{1,256})\k<q>|(?<bare>[^\s"'\`;|&<>()]{1,256}))[ \t]*\|[ \t]*(?<reader>sudo[ \t]+(?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*S|(?:sudo[ \t]+(?:-[A-Za-z]+[ \t]+)*)?(?:(?:docker|podman|nerdctl|helm[ \t]+registry|oras|skopeo|crane)[ \t]+(?:auth[ \t]+)?login\b[^|\n]*--password-stdin|chpasswd\b|passwd[ \t]+--stdin|gh[ \t]+auth[ \t]+login\b[^|\n]*--with-token))`,
    {
      triggers: ["echo", "printf"],
      pick: (m, at) => {
        const group = m.groups?.quoted !== undefined ? "quoted" : "bare";
        const value = m.groups?.[group] ?? "";
        // `chpasswd` reads `user:password` lines: the password is what follows the first colon.
        const colon = (m.groups?.reader ?? "").includes("chpasswd") ? value.indexOf(":") + 1 : 0;
        if (!passwordValue(value.slice(colon), 3)) return undefined;
        const range = at(group);
        return range === undefined ? undefined : { start: range[0] + colon, end: range[1] };
      },
    },
  ),
];
