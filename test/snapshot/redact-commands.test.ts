import { describe, expect, it } from "vitest";
import { COMMAND_RULES } from "../../plugin/snapshot/redact-commands.ts";
import { compileRules, findSecrets } from "../../plugin/snapshot/redact-engine.ts";

const rules = compileRules(COMMAND_RULES);
const PASSWORD = "Xk9#mQ2v!pL";
/** The text with each finding of the command rules alone replaced by `<>`. */
function marked(text: string): string {
  let out = "";
  let at = 0;
  for (const f of findSecrets(text, rules)) {
    out += `${text.slice(at, f.start)}<>`;
    at = f.end;
  }
  return out + text.slice(at);
}

describe("COMMAND_RULES", () => {
  it.each([
    [`ldapsearch -x -D cn=admin,dc=acme -w ${PASSWORD} -b dc=acme`, "-w <> -b"],
    [`ldappasswd -x -a old${PASSWORD} -s new${PASSWORD} uid=li`, "-a <> -s <> uid"],
    [`smbclient //nas/backup -U 'ACME\\backup%${PASSWORD}' -c ls`, "%<>' -c"],
    [`smbclient -U backup%${PASSWORD} //nas/backup`, "%<> //nas"],
    [`rdesktop -u admin -p ${PASSWORD} 10.0.4.30`, "-p <> 10"],
    [`xfreerdp /v:10.0.4.30 /u:admin /p:${PASSWORD} /cert:ignore`, "/p:<> /cert"],
    [`ssh-keygen -p -P old${PASSWORD} -N new${PASSWORD} -f key`, "-P <> -N <> -f"],
    [`7z a -p${PASSWORD} -mhe=on b.7z d`, "-p<> -mhe"],
    [`unzip -P ${PASSWORD} export.zip`, "-P <> export"],
    [`sqlcmd -S db -U sa -P ${PASSWORD} -Q "select 1"`, "-P <> -Q"],
    [`ipmitool -I lanplus -H h -U ADMIN -P ${PASSWORD} power status`, "-P <> power"],
    [`mosquitto_sub -h m -u s -P ${PASSWORD} -t x`, "-P <> -t"],
    [`plink -ssh -pw ${PASSWORD} root@h uptime`, "-pw <> root"],
    [`mongosh -u admin -p ${PASSWORD} --authenticationDatabase admin`, "-p <> --auth"],
    [`openssl enc -aes-256-cbc -k ${PASSWORD} -in f`, "-k <> -in"],
    [
      `keytool -list -keystore k.jks -storepass ${PASSWORD} -keypass ${PASSWORD}`,
      "-storepass <> -keypass <>",
    ],
    [`sqlplus scott/${PASSWORD}@orcl @run.sql`, "scott/<>@orcl"],
    [`lftp -u backup,${PASSWORD} sftp://files`, "backup,<> sftp"],
    [`http -a me:${PASSWORD} POST api.example.org/items`, "me:<> POST"],
    [`xh --auth me:'${PASSWORD}' get example.org`, "me:'<>' get"],
    [`htpasswd -bB /etc/nginx/.htpasswd admin ${PASSWORD}`, "admin <>"],
    [`htpasswd -nb admin '${PASSWORD}'`, "admin '<>'"],
    [`net user svc ${PASSWORD} /add`, "svc <> /add"],
    [`cmdkey /add:fs /user:svc /pass:${PASSWORD}`, "/pass:<>"],
    [`rabbitmqctl change_password ops ${PASSWORD}`, "ops <>"],
    [`wpa_passphrase "Office 5G" '${PASSWORD}'`, "G\" '<>'"],
    [`nmcli dev wifi connect Home password ${PASSWORD}`, "password <>"],
    [`kubectl create secret generic db --from-literal=password=${PASSWORD} -n prod`, "password=<> -n"],
    [`aws configure set aws_secret_access_key ${PASSWORD}`, "aws_secret_access_key <>"],
    [`security add-generic-password -a me -s deploy -w ${PASSWORD}`, "-w <>"],
    [`echo '${PASSWORD}' | sudo -S apt update`, "echo '<>' |"],
    [`printf '%s' ${PASSWORD} | docker login r.io -u ci --password-stdin`, "'%s' <> |"],
    [`echo '${PASSWORD}' | gh auth login --with-token`, "echo '<>' |"],
    [`echo 'deploy:${PASSWORD}' | sudo chpasswd`, "deploy:<>' |"],
  ])("takes the password of %s", (text, around) => {
    const out = marked(text);
    expect(out).toContain(around);
    expect(out).not.toContain(PASSWORD);
  });

  it.each([
    "ssh-keygen -t ed25519 -N '' -f key",
    "net user admin /delete",
    "net user admin *",
    "sqlplus / as sysdba",
    "sqlplus scott@orcl @run.sql",
    "echo hello | sudo tee /etc/motd",
    "echo $DB_PASSWORD | sudo -S true",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "htpasswd -b /etc/nginx/.htpasswd admin nginx",
    "kubectl create secret generic app --from-literal=region=eu-west-1",
    "mongosh -u admin --authenticationDatabase admin",
    "ldapsearch -x -W -b dc=acme",
    "http -a me: POST api.example.org/items",
    "see https://example.org -a note",
    "smbclient -N -L //nas.local",
    "go get github.com/acme/x/exp/golden: github.com/acme/lib@v0.1.0",
  ])("finds nothing in %s", (text) => {
    expect(findSecrets(text, rules)).toEqual([]);
  });

  it("reads a command line dense with password options in linear time, each one found", () => {
    const text = `keytool -storepass ${PASSWORD} `.repeat(2_000);
    expect(findSecrets(text, rules)).toHaveLength(2_000);
  });
});
