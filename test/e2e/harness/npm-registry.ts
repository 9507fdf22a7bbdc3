/**
 * A stand-in npm registry on 127.0.0.1 that publishes one packed tarball (as `npm publish` would, version
 * and integrity included) and redirects every other request to the public registry, so that
 * `openclaw plugins install npm:<name>` (which runs `npm view` and `npm install`, honouring
 * `npm_config_registry`) can be tried before the package is published. Nothing is published anywhere.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

const UPSTREAM = "https://registry.npmjs.org";

/** The package.json inside an npm tarball (a ustar archive whose entries sit under `package/`). */
function packageJsonOf(tgz: Buffer): Record<string, unknown> {
  const tar = gunzipSync(tgz);
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = tar
      .subarray(at, at + 100)
      .toString("utf8")
      .replace(/\0.*$/s, "");
    const size = Number.parseInt(
      tar
        .subarray(at + 124, at + 136)
        .toString("utf8")
        .replace(/\0.*$/s, "")
        .trim() || "0",
      8,
    );
    if (name === "") break;
    if (name === "package/package.json") {
      const parsed: unknown = JSON.parse(tar.subarray(at + 512, at + 512 + size).toString("utf8"));
      if (typeof parsed === "object" && parsed !== null) return parsed as Record<string, unknown>;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error("npm-registry: the tarball has no package/package.json");
}

/** A running stand-in registry: `url` ends with `/`, for `npm_config_registry`. */
export interface NpmRegistry {
  url: string;
  /** The published tarball's `sha512-...` integrity, as the packument gives it. */
  integrity: string;
  /** Paths requested, in order (the published package's and the redirected ones). */
  requests: string[];
  close(): Promise<void>;
}

/** Serves the package in `tarball` under its own name and version; see the module comment. */
export async function startNpmRegistry(tarball: string): Promise<NpmRegistry> {
  const tgz = await readFile(tarball);
  const pkg = packageJsonOf(tgz);
  const name = String(pkg.name);
  const version = String(pkg.version);
  const file = `/${name}/-/${name}-${version}.tgz`;
  const integrity = `sha512-${createHash("sha512").update(tgz).digest("base64")}`;
  const shasum = createHash("sha1").update(tgz).digest("hex");
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    requests.push(path);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (decodeURIComponent(path) === `/${name}`) {
      const manifest = {
        ...pkg,
        _id: `${name}@${version}`,
        dist: { tarball: `${base}${file}`, integrity, shasum },
      };
      const now = new Date().toISOString();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          _id: name,
          name,
          "dist-tags": { latest: version },
          versions: { [version]: manifest },
          time: { created: now, modified: now, [version]: now },
        }),
      );
    } else if (path === file) {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": tgz.length });
      res.end(tgz);
    } else {
      res.writeHead(302, { location: `${UPSTREAM}${req.url ?? "/"}` });
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    integrity,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
