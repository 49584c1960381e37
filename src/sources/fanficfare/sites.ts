/**
 * The sites FanFicFare downloads from (docs/decisions.md, "Sources"): what decides whether an
 * address goes through it when `FANFICFARE_COMMAND` is set, and whether Storyshelf says that
 * FanFicFare would handle it when it is not. With the command set, the installed FanFicFare's own
 * `--sites-list` is the truth (asked once, ./engine.ts); the list below is the one of FanFicFare
 * 4.59.9 (its adapters' site and accepted domains, each site once: a subdomain of a listed domain
 * is matched by it), for when it is not installed or does not answer.
 */

export const FANFICFARE_SITES: readonly string[] = [
  'adastrafanfic.com', 'adult-fanfiction.org', 'alternatehistory.com', 'althistory.com', 'aneroticstory.com',
  'ao3.org', 'archive.hpfanfictalk.com', 'archiveofourown.com', 'archiveofourown.gay', 'archiveofourown.net',
  'archiveofourown.org', 'asexstories.com', 'ashwinder.sycophanthex.com', 'asianfanfics.com', 'bdsmlibrary.com',
  'cfaarchive.org', 'chaos.sycophanthex.com', 'chireads.com', 'chosentwofanfic.com', 'dark-solace.org',
  'deviantart.com', 'dokuga.com', 'dracoandginny.com', 'efpfanfic.net', 'erosnsappho.sycophanthex.com',
  'fanficauthors.net', 'fanfics.me', 'fanfictalk.com', 'fanfiction.net', 'fanfictions.fr', 'fanfiktion.de',
  'ficbook.net', 'fiction.live', 'fictionalley-archive.org', 'fictionalley.org', 'fictionhunt.com',
  'fictionpress.com', 'ficwad.com', 'fimfiction.com', 'fimfiction.net', 'finestories.com', 'fireflyfans.net',
  'forum.questionablequesting.com', 'forums.spacebattles.com', 'forums.sufficientvelocity.com', 'giantessworld.net',
  'gluttonyfiction.com', 'hentai-foundry.com', 'imagine.e-fic.com', 'inkbunny.net', 'kakuyomu.jp', 'ksarchive.com',
  'lcfanfic.com', 'libraryofmoria.com', 'lightnovelgate.com', 'literotica.com', 'lumos.sycophanthex.com',
  'masseffect2.in', 'mcstories.com', 'mediaminer.org', 'midnightwhispers.ca', 'midnightwhispers.net',
  'mtt.just-once.net', 'mugglenetfanfiction.com', 'naiceanilme.net', 'narutofic.org', 'ncisfiction.com',
  'ninelivesarchive.com', 'novelall.com', 'novelfull.com', 'novelonlinefull.com', 'occlumency.sycophanthex.com',
  'phoenixsong.net', 'pmdfanfiction.com', 'potionsandsnitches.net', 'potionsandsnitches.org', 'pretendercentre.com',
  'psychfic.com', 'readonlymind.com', 'royalroad.com', 'royalroadl.com', 'samandjack.net', 'scifistories.com',
  'scribblehub.com', 'sheppardweir.com', 'sinful-dreams.com', 'siye.co.uk', 'socialspirit.com.br', 'sofurry.com',
  'spikeluver.com', 'spiritfanfiction.com', 'squidgeworld.org', 'starslibrary.net', 'storiesofarda.com',
  'storiesonline.net', 'storyroom.com', 'sunnydaleafterdark.com', 'superlove.sayitditto.net', 'syosetu.com',
  't.evancurrie.ca', 'test1.com', 'test2.com', 'test3.com', 'test4.com', 'tgstorytime.com', 'the-sietch.com',
  'thedelphicexpanse.com', 'thehookupzone.net', 'themasque.net', 'touchfluffytail.org', 'trekfanfiction.net',
  'tthfanfic.org', 'twcslibrary.net', 'twilighted.net', 'utopiastories.com', 'valentchamber.com',
  'walkingtheplank.org', 'wattpad.com', 'whofic.com', 'wolverineandrogue.com',
];

/** The host of an http(s) address, lower case and without `www.`; undefined for anything else. */
export function hostOf(address: string): string | undefined {
  try {
    const url = new URL(address);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

/** Whether `address` is on one of `sites` (the site itself or a subdomain of it). */
export function isOnSites(address: string, sites: ReadonlySet<string>): boolean {
  const host = hostOf(address);
  if (host === undefined) return false;
  for (let at = 0; at !== -1; at = host.indexOf('.', at + 1)) {
    if (sites.has(at === 0 ? host : host.slice(at + 1))) return true;
  }
  return false;
}

/** The sites FanFicFare's `--sites-list` prints (`#### archiveofourown.org`, then example URLs). */
export function sitesOfList(output: string): string[] {
  return [...output.matchAll(/^#### +(\S+)\s*$/gm)].map((match) => (match[1] as string).toLowerCase().replace(/^www\./, ''));
}
