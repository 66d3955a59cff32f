/** The colours badges, bars and timeline dots come in (see styles/tokens.css). */
export type Tone = 'blue' | 'azure' | 'green' | 'red' | 'orange' | 'yellow' | 'purple' | 'cyan' | 'gray';
